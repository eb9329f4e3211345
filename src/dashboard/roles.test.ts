import { describe, expect, it } from 'vitest';
import { checkRequest } from './roles.js';

const as = (role: string) => ({ role });

describe('dashboard roles', () => {
  it("let owners and admins release a deposit AML holds, and no one else (the page's button is a listed change)", () => {
    const path = '/wallets/w1/transactions/t1/aml-release';
    for (const role of ['owner', 'admin']) expect(() => checkRequest(as(role), 'POST', path)).not.toThrow();
    for (const role of ['approver', 'developer', 'viewer'])
      expect(() => checkRequest(as(role), 'POST', path)).toThrow(/cannot release deposits/);
  });

  it('let owners and admins create, deactivate and activate payment links, and no one else', () => {
    for (const path of ['/payment-links', '/payment-links/l1/active']) {
      for (const role of ['owner', 'admin']) expect(() => checkRequest(as(role), 'POST', path)).not.toThrow();
      for (const role of ['approver', 'developer', 'viewer'])
        expect(() => checkRequest(as(role), 'POST', path)).toThrow(/cannot change wallets/);
    }
  });

  it('refuse a change no entry lists, whatever the role', () => {
    expect(() => checkRequest(as('owner'), 'POST', '/wallets/w1/transactions/t1/something-new')).toThrow(/not allowed from the dashboard/);
    // A POST that reached no route (null) is refused too; a GET of no route is the 404 page.
    expect(() => checkRequest(as('owner'), 'POST', null)).toThrow(/not allowed from the dashboard/);
    expect(() => checkRequest(as('viewer'), 'GET', null)).not.toThrow();
  });

  it('read routes as registered: a parameter stands for any id', () => {
    expect(() => checkRequest(as('viewer'), 'GET', '/wallets/:walletId/withdraw')).toThrow(/cannot send withdrawals/);
    expect(() => checkRequest(as('viewer'), 'GET', '/developers')).toThrow(/cannot manage API keys/);
    expect(() => checkRequest(as('viewer'), 'GET', '/wallets/:walletId')).not.toThrow();
    expect(() => checkRequest(as('developer'), 'POST', '/developers/:walletId/webhook')).not.toThrow();
    expect(() => checkRequest(as('approver'), 'POST', '/approvals/:approvalId/approve')).not.toThrow();
  });
});
