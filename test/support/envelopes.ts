// The AsyncAPI contract of a delivery: a delivered body checked against its message's payload
// schema in generated/asyncapi-a.json or -b.json.
import fs from 'node:fs';

type Validate = ((value: unknown) => boolean) & { errors?: unknown };
const validators = new Map<string, Validate>();

/**
 * Validates a delivered body against the payload schema of its message in
 * generated/asyncapi-a.json or -b.json (the message whose name is the event type). Returns the
 * schema errors, [] when valid.
 */
export async function envelopeErrors(variant: 'A' | 'B', body: any): Promise<unknown[]> {
  const eventType = variant === 'A' ? body?.event : body?.type;
  const key = `${variant}:${eventType}`;
  let validate = validators.get(key);
  if (!validate) {
    const { Ajv } = await import('ajv');
    const formats = await import('ajv-formats');
    const addFormats = ((formats as any).default?.default ?? (formats as any).default ?? formats) as (
      ajv: unknown,
    ) => unknown;
    const file = new URL(`../../generated/asyncapi-${variant.toLowerCase()}.json`, import.meta.url);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const message = Object.values<any>(doc.components.messages).find((m) => m.name === eventType);
    if (!message) return [`no message named ${eventType} in asyncapi-${variant.toLowerCase()}.json`];
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const id = `https://shortlink.invalid/asyncapi-${variant.toLowerCase()}.json`;
    ajv.addSchema({ $id: id, components: { schemas: doc.components.schemas } });
    const ref = message.payload.$ref as string;
    validate = ajv.compile(ref ? { $ref: `${id}${ref}` } : message.payload) as Validate;
    validators.set(key, validate);
  }
  return validate(body) ? [] : ((validate.errors as unknown[]) ?? ['invalid']);
}
