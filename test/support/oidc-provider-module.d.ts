// oidc-provider 8 ships no types (its @types package is not a dependency): the little of it the
// test provider (oidc-provider.ts) uses, typed loosely.
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: new (init: {
      accountId: string;
      clientId: string;
    }) => {
      addOIDCScope(scope: string): void;
      save(): Promise<string>;
    };
    interactionDetails(req: unknown, res: unknown): Promise<{ params: Record<string, unknown> }>;
    interactionFinished(
      req: unknown,
      res: unknown,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    use(middleware: (ctx: any, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: unknown, res: unknown) => void;
  }
}
