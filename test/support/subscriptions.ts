// Request bodies that subscribe a workspace to webhooks, valid as they are: Variant A's
// (POST /api/webhooks) and Variant B's (POST /api/v1/webhooks), with a case's `extra` fields on top.

/** The secret Variant B's subscriptions choose themselves. */
export const SECRET_B = 'a-caller-chosen-secret';

export const subscriptionBodyA = (workspaceId: string, extra: object = {}) => ({
  workspaceId,
  url: 'https://hooks.example.com/a',
  events: ['link.created'],
  ...extra,
});

export const subscriptionBodyB = (extra: object = {}) => ({
  url: 'https://hooks.example.com/b',
  events: ['link.clicked'],
  secret: SECRET_B,
  ...extra,
});
