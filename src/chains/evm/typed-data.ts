/**
 * EIP-712 typed data: validation of a client's input, then viem's hashTypedData for the
 * digest. viem checks only part of a message (not the members of arrays of structs, not
 * missing members, not the kinds of values), and a malformed input can make it throw a
 * TypeError or, worse, hash something other than what the client meant. So everything is
 * checked here first, with field paths for the 400's details, and viem hashes only input
 * that is known to be complete and well typed.
 */
import { hashTypedData, type TypedDataDefinition } from 'viem';
import { ValidationError, type FieldIssue } from '../../lib/errors.js';
import type { TypedDataInput, TypedDataPayload } from '../types.js';
import { parseEvmAddress } from './address.js';

type Member = { name: string; type: string };
type Types = Record<string, Member[]>;
export type Report = (field: string, message: string) => void;

// EIP-712: struct and member names are identifiers. Anything else (spaces, commas,
// parentheses) would also make encodeType ambiguous.
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const ARRAY_SUFFIX = /\[(\d*)\]$/;
const MAX_ISSUES = 20;
// Recursive types (a tree) can nest without end; JavaScript's stack cannot.
const MAX_DEPTH = 32;
const DOMAIN_TYPE = 'EIP712Domain';
const DOMAIN_MEMBERS: Record<string, string> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
};

export type Kind =
  { kind: 'int'; signed: boolean; bits: number } | { kind: 'bytes'; size: number | null } | { kind: 'address' | 'bool' | 'string' };

/** The elementary Solidity type `type` names, or null (a struct name, or nothing valid). */
export function elementary(type: string): Kind | null {
  if (type === 'address' || type === 'bool' || type === 'string') return { kind: type };
  if (type === 'bytes') return { kind: 'bytes', size: null };
  const bytes = /^bytes(\d+)$/.exec(type);
  if (bytes) {
    const size = Number(bytes[1]);
    return size >= 1 && size <= 32 && String(size) === bytes[1] ? { kind: 'bytes', size } : null;
  }
  // EIP-712 has no `uint`/`int` aliases: the size is part of the encoded type string.
  const int = /^(u?)int(\d+)$/.exec(type);
  if (int) {
    const bits = Number(int[2]);
    return bits >= 8 && bits <= 256 && bits % 8 === 0 && String(bits) === int[2] ? { kind: 'int', signed: int[1] === '', bits } : null;
  }
  return null;
}

/** `Person[2][]` -> `Person`, or null when an array suffix is malformed (`[0]`, `[x]`). */
export function baseOf(type: string): string | null {
  let t = type;
  for (let m = ARRAY_SUFFIX.exec(t); m; m = ARRAY_SUFFIX.exec(t)) {
    if (m[1] !== '' && (Number(m[1]) < 1 || String(Number(m[1])) !== m[1])) return null;
    t = t.slice(0, m.index);
  }
  return t.includes('[') || t.includes(']') ? null : t;
}

function parseTypes(raw: Record<string, unknown>, report: Report): Types {
  // No prototype: a type named `constructor` or `__proto__` must not meet Object's own.
  const types: Types = Object.create(null) as Types;
  for (const [name, members] of Object.entries(raw)) {
    const at = `types.${name}`;
    if (!Array.isArray(members)) {
      report(at, 'must be an array of { name, type }');
      continue;
    }
    types[name] = members as Member[];
    if (name === DOMAIN_TYPE) continue; // checked against the domain
    // viem refuses struct names that start like a Solidity type (`int...`, `bytes...`).
    if (!IDENTIFIER.test(name) || name === '__proto__' || /^(address|bool|string)$|^(bytes|uint|int)/.test(name)) {
      report(at, 'a struct name must be an identifier that does not look like a Solidity type');
    }
    if (members.length === 0) report(at, 'a struct needs at least one member');
    const seen = new Set<string>();
    members.forEach((m: unknown, i) => {
      const member = m as Partial<Member> | null;
      if (typeof member?.name !== 'string' || typeof member.type !== 'string') return report(`${at}.${i}`, 'must be { name, type }');
      if (!IDENTIFIER.test(member.name) || member.name === '__proto__') report(`${at}.${i}.name`, 'must be an identifier');
      else if (seen.has(member.name)) report(`${at}.${i}.name`, `'${member.name}' appears twice in ${name}`);
      seen.add(member.name);
      const base = baseOf(member.type);
      if (base === null) return report(`${at}.${i}.type`, `'${member.type}' has a malformed array suffix`);
      if (elementary(base)) return;
      if (base === DOMAIN_TYPE || !Object.hasOwn(raw, base))
        report(`${at}.${i}.type`, `'${member.type}' is neither a Solidity type nor a struct defined in types`);
    });
  }
  return types;
}

/** The domain's own type: the client's EIP712Domain when given (it must describe the domain exactly), else the standard one. */
function domainMembers(domain: TypedDataInput['domain'], types: Types, report: Report): Member[] {
  if (!parseEvmAddress(domain.verifyingContract)) {
    report('domain.verifyingContract', 'is not a valid address (or its EIP-55 checksum is wrong)');
  }
  if (domain.salt !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(domain.salt)) report('domain.salt', 'must be 32 bytes as 0x-prefixed hex');
  const present = Object.keys(DOMAIN_MEMBERS).filter((k) => domain[k as keyof typeof domain] !== undefined);
  const declared = types[DOMAIN_TYPE];
  if (!declared) return present.map((name) => ({ name, type: DOMAIN_MEMBERS[name]! }));
  // A member of the domain left out of its type would be silently left out of the
  // signature: the client would believe it signed something it did not.
  declared.forEach((m, i) => {
    if (DOMAIN_MEMBERS[m?.name] !== m?.type)
      report(
        `types.${DOMAIN_TYPE}.${i}`,
        'must be one of name string, version string, chainId uint256, verifyingContract address, salt bytes32',
      );
  });
  const names = new Set(declared.map((m) => m?.name));
  // Listed twice, a member is hashed twice: a domain no contract computes (struct types refuse the same).
  if (names.size !== declared.length) report(`types.${DOMAIN_TYPE}`, 'lists a member more than once');
  for (const k of present) if (!names.has(k)) report(`types.${DOMAIN_TYPE}`, `does not list '${k}', which domain has`);
  for (const k of names)
    if (typeof k === 'string' && !present.includes(k)) report(`types.${DOMAIN_TYPE}`, `lists '${k}', which domain lacks`);
  return declared;
}

/** The given primary type, or the one struct no other struct refers to. */
function primaryTypeOf(types: Types, given: string | undefined, report: Report): string {
  const structs = Object.keys(types).filter((n) => n !== DOMAIN_TYPE);
  if (structs.length === 0) {
    report('types', `must define the message's struct (besides ${DOMAIN_TYPE})`);
    return '';
  }
  if (given !== undefined) {
    if (!structs.includes(given)) report('primaryType', `'${given}' is not a struct defined in types`);
    return given;
  }
  const referenced = new Set<string>();
  for (const name of structs) for (const m of types[name]!) if (baseOf(m.type) !== name) referenced.add(baseOf(m.type) ?? '');
  const roots = structs.filter((n) => !referenced.has(n));
  if (roots.length === 1) return roots[0]!;
  report(
    'primaryType',
    roots.length === 0
      ? 'cannot be inferred (every struct is referenced by another); give primaryType'
      : `cannot be inferred (${roots.join(', ')} are each referenced by no other struct); give primaryType`,
  );
  return '';
}

/** The value in the form viem hashes (integers as bigint), or undefined after reporting why not. */
function normalize(types: Types, type: string, value: unknown, at: string, report: Report, depth: number): unknown {
  if (depth > MAX_DEPTH) return report(at, `nests deeper than ${MAX_DEPTH} levels`);
  const array = ARRAY_SUFFIX.exec(type);
  if (array) {
    if (!Array.isArray(value)) return report(at, `must be an array (${type})`);
    if (array[1] !== '' && value.length !== Number(array[1])) return report(at, `must have exactly ${array[1]} items (${type})`);
    const inner = type.slice(0, array.index);
    return value.map((v, i) => normalize(types, inner, v, `${at}.${i}`, report, depth + 1));
  }
  const struct = Object.hasOwn(types, type) ? types[type] : undefined;
  if (struct) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return report(at, `must be an object (${type})`);
    // Members not in the type are ignored, as eth_signTypedData_v4 does: they are not signed.
    const out: Record<string, unknown> = {};
    for (const m of struct) {
      const v = (value as Record<string, unknown>)[m.name];
      if (v === undefined) report(`${at}.${m.name}`, `is missing (${m.type})`);
      else out[m.name] = normalize(types, m.type, v, `${at}.${m.name}`, report, depth + 1);
    }
    return out;
  }
  return scalar(elementary(type)!, type, value, at, report);
}

/** Checks one elementary value (shared with contract-call arguments); undefined after reporting. */
export function scalar(k: Kind, type: string, value: unknown, at: string, report: Report): unknown {
  switch (k.kind) {
    case 'int': {
      let n: bigint | null = null;
      if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
      else if (typeof value === 'string' && /^-?\d{1,78}$|^0x[0-9a-fA-F]{1,64}$/.test(value)) n = BigInt(value);
      if (n === null) return report(at, `must be an integer (${type}): a decimal string, or a number up to 2^53`);
      const [min, max] = k.signed ? [-(1n << BigInt(k.bits - 1)), (1n << BigInt(k.bits - 1)) - 1n] : [0n, (1n << BigInt(k.bits)) - 1n];
      if (n < min || n > max) return report(at, `is out of range for ${type}`);
      return n;
    }
    case 'bytes': {
      const hex = typeof value === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(value);
      if (!hex) return report(at, `must be 0x-prefixed hex bytes (${type})`);
      if (k.size !== null && value.length !== 2 + 2 * k.size) return report(at, `must be exactly ${k.size} bytes (${type})`);
      return value;
    }
    case 'address':
      // Checksummed: viem's encoders refuse an all-upper-case address.
      return parseEvmAddress(value) ?? report(at, 'must be a valid address (mixed case needs a correct EIP-55 checksum)');
    case 'bool':
      return typeof value === 'boolean' ? value : report(at, 'must be true or false');
    case 'string':
      return typeof value === 'string' ? value : report(at, 'must be a string');
  }
}

/** Validates, completes and hashes a client's typed data; a ValidationError lists every problem found. */
export function prepareTypedData(input: TypedDataInput): TypedDataPayload {
  const issues: FieldIssue[] = [];
  const report: Report = (field, message) => {
    if (issues.length < MAX_ISSUES) issues.push({ field, message });
  };
  const fail = () => {
    throw new ValidationError(`${issues[0]!.field} ${issues[0]!.message}`, issues);
  };
  const parsed = parseTypes(input.types, report);
  if (issues.length) fail();
  const domainType = domainMembers(input.domain, parsed, report);
  const primaryType = primaryTypeOf(parsed, input.primaryType, report);
  if (issues.length) fail();
  const message = normalize(parsed, primaryType, input.message, 'message', report, 0) as Record<string, unknown>;
  if (issues.length) fail();

  const domain: TypedDataPayload['domain'] = {
    name: input.domain.name,
    version: input.domain.version,
    chainId: input.domain.chainId,
    // Checksummed (the same 20 bytes): viem's encoder refuses an all-upper-case address.
    verifyingContract: parseEvmAddress(input.domain.verifyingContract)!,
    ...(input.domain.salt !== undefined ? { salt: input.domain.salt } : {}),
  };
  const types: Types = { ...parsed, [DOMAIN_TYPE]: domainType };
  let digest: string;
  try {
    digest = hashTypedData({ domain, types, primaryType, message } as unknown as TypedDataDefinition);
  } catch (err) {
    // Not expected after the checks above; still the client's input, so a 400.
    throw new ValidationError(`typed data cannot be hashed: ${(err as { shortMessage?: string }).shortMessage ?? String(err)}`);
  }
  return { domain, types, primaryType, message, digest };
}
