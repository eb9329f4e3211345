import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, ok } from '../../lib/schema.js';
import type { PolicyService } from './service.js';
import {
  ApprovalParams,
  ApprovalSchema,
  CreatePolicyBody,
  EvaluateBody,
  EvaluationSchema,
  ListApprovalsQuery,
  PolicyParams,
  PolicySchema,
  UpdatePolicyBody,
  VoteBody,
} from './schemas.js';

const Policy = Type.Ref(PolicySchema);
const Approval = Type.Ref(ApprovalSchema);

const MANAGE =
  'Needs a business API key with the MANAGE_POLICIES scope (given by the operator: `api-key create --scope MANAGE_POLICIES`); every change is on the audit log.';
const VOTE =
  'Needs a business API key with the APPROVE scope that the request lists among its approvers (`approvers.apiKeys`); the key that initiated the payout is refused (403 `SELF_APPROVAL`), and each approver votes once (409 `ALREADY_VOTED`). `{id}` is the request id or its transaction id.';

export const policyRoutes: FastifyPluginAsyncTypebox<{ policies: PolicyService }> = async (app, { policies }) => {
  const tags = ['Policies'];

  app.get(
    '/v1/policies',
    {
      schema: {
        tags,
        summary: "List the business's transaction policies",
        description: 'Extension (docs/policies.md). In evaluation order: ascending priority, ties the older first. A business key.',
        response: { 200: Envelope(Type.Array(Policy)) },
      },
    },
    async (req) => ok(await policies.list(req.auth), 'Policies fetched successfully'),
  );

  app.post(
    '/v1/policies',
    {
      schema: {
        tags,
        summary: 'Create a transaction policy',
        description: `Extension. A rule matches a would-be transaction when its scope (walletId, addressId) and every condition it has match; the first match by priority decides ALLOW, BLOCK or REQUIRE_APPROVAL (approvers, quorum, ttlSeconds; only for WITHDRAW and BATCH_ITEM). ${MANAGE}`,
        body: CreatePolicyBody,
        response: { 200: Envelope(Policy) },
      },
    },
    async (req) => ok(await policies.create(req.auth, req.body, req.id), 'Policy created successfully'),
  );

  app.post(
    '/v1/policies/evaluate',
    {
      schema: {
        tags,
        summary: 'Dry run: which rule would decide a transaction, and why',
        description:
          'Extension. The same rules and velocity windows as the live decision, read without effect: `action`, the deciding `policy` (null: none matched, allowed), and `steps` (each rule looked at, in order, with why it did or did not match). Nothing is written.',
        body: EvaluateBody,
        response: { 200: Envelope(EvaluationSchema) },
      },
    },
    async (req) => ok(await policies.evaluate(req.auth, req.body), 'Policy evaluated successfully'),
  );

  app.get(
    '/v1/policies/:id',
    { schema: { tags, summary: 'Get a transaction policy', params: PolicyParams, response: { 200: Envelope(Policy) } } },
    async (req) => ok(await policies.get(req.auth, req.params.id), 'Policy fetched successfully'),
  );

  app.patch(
    '/v1/policies/:id',
    {
      schema: {
        tags,
        summary: 'Change a transaction policy',
        description: `Extension. Any field; the rule is checked whole after the change. Approval requests already open keep the approvers, quorum and expiry they were opened with. ${MANAGE}`,
        params: PolicyParams,
        body: UpdatePolicyBody,
        response: { 200: Envelope(Policy) },
      },
    },
    async (req) => ok(await policies.update(req.auth, req.params.id, req.body, req.id), 'Policy updated successfully'),
  );

  app.delete(
    '/v1/policies/:id',
    {
      schema: {
        tags,
        summary: 'Delete a transaction policy',
        description: `Extension. Returns the rule as it was. Open approval requests it made stay open. ${MANAGE}`,
        params: PolicyParams,
        response: { 200: Envelope(Policy) },
      },
    },
    async (req) => ok(await policies.remove(req.auth, req.params.id, req.id), 'Policy deleted successfully'),
  );

  const approvalTags = ['Approvals'];
  app.get(
    '/v1/approvals',
    {
      schema: {
        tags: approvalTags,
        summary: 'List approval requests',
        description:
          'Extension. Payouts a REQUIRE_APPROVAL rule holds (PENDING_APPROVAL), newest first; filter by status and wallet. A business key.',
        querystring: ListApprovalsQuery,
        response: { 200: PagedEnvelope(Approval) },
      },
    },
    async (req) => {
      const { items, meta } = await policies.approvals.list(req.auth, req.query);
      return ok(items, 'Approvals fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/approvals/:id',
    {
      schema: {
        tags: approvalTags,
        summary: 'Get an approval request',
        description: 'Extension. `{id}` is the request id or its transaction id.',
        params: ApprovalParams,
        response: { 200: Envelope(Approval) },
      },
    },
    async (req) => ok(await policies.approvals.get(req.auth, req.params.id), 'Approval fetched successfully'),
  );

  app.post(
    '/v1/approvals/:id/approve',
    {
      schema: {
        tags: approvalTags,
        summary: 'Approve a held payout',
        description: `Extension. At the quorum of distinct approvals the payout is sent as any withdrawal (PENDING, then \`withdraw.success\`). A request past its time to live is cancelled instead (409 \`APPROVAL_EXPIRED\`). ${VOTE}`,
        params: ApprovalParams,
        body: Type.Optional(VoteBody),
        response: { 200: Envelope(Approval) },
      },
    },
    async (req) => ok(await policies.approvals.approve(req.auth, req.params.id, req.body?.comment, req.id), 'Approval recorded'),
  );

  app.post(
    '/v1/approvals/:id/reject',
    {
      schema: {
        tags: approvalTags,
        summary: 'Reject a held payout',
        description: `Extension. One rejection is enough: the payout is CANCELLED (\`withdraw.cancelled\`) and what it held is released. ${VOTE}`,
        params: ApprovalParams,
        body: Type.Optional(VoteBody),
        response: { 200: Envelope(Approval) },
      },
    },
    async (req) => ok(await policies.approvals.reject(req.auth, req.params.id, req.body?.comment, req.id), 'Rejection recorded'),
  );
};
