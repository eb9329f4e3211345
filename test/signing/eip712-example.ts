/** The example of EIP-712 itself, shared by the typed-data tests. */
export const CONTRACT = '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC';

export function mail() {
  return {
    domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: CONTRACT },
    types: {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    },
    message: {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    },
  };
}

/** An EIP-2612 permit of `token` (a USDC-like domain): `owner` lets `spender` take `value` base units. */
export function permit(token: string, chainId: number, owner: string, spender: string, value: string) {
  return {
    domain: { name: 'USD Coin', version: '2', chainId, verifyingContract: token },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    message: { owner, spender, value, nonce: 0, deadline: 1_900_000_000 },
  };
}
