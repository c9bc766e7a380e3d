// The reference verifiers for receivers live in plain JavaScript (verify.mjs, typed by
// verify.d.mts) so that `import { verifyVariantA, verifyVariantB } from 'shortlink/webhooks'`
// works under plain Node without a TypeScript loader. This module re-exports them for the code
// and tests written in TypeScript.
export { verifyVariantA, verifyVariantB, type VerifyVariantAOptions } from './verify.mjs';
