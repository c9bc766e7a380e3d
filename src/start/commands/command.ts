// What an operator command is, and the reading of its flags: every command's input is checked
// here the same way, and a bad flag is a usage error (exit 2) naming the flag.
import { isUniqueViolation, type Database } from '../../db/knex.ts';
import type { Config } from '../../config.ts';
import { conflict, quoted, usage } from '../../domain/errors.ts';

export type Flags = Record<string, string | undefined>;
export type Command = {
  flags: string[];
  /** Flags that take no value (`--shared`): 'true' in `flags` when given. */
  switches?: string[];
  required: string[];
  run(ctx: { db: Database; config: Config; flags: Flags }): Promise<object>;
};

/** A command that works on files, not on the database through knex: nothing is opened or migrated first (restore needs the database not to exist). */
export type FileCommand = Omit<Command, 'run'> & {
  runOnFiles(ctx: { config: Config; flags: Flags }): Promise<object>;
};

/** A comma-separated flag (`--events a,b`) as its non-empty items. */
export const listFlag = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  const v = (
    ['--role', '--status', '--outcome', '--variant'].includes(flag) ? value.toUpperCase() : value.toLowerCase()
  ) as T;
  if (!allowed.includes(v)) throw usage(`${flag} must be one of ${allowed.join(', ')}; got ${quoted(value)}`);
  return v;
}

// A calendar date (UTC midnight) or a date and time with a zone: Date.parse alone would take
// "1" as the year 2001, "2027-02-30" as 2 March and "12/31/2027" in the local zone.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2})))?$/i;

export function isoTime(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const m = ISO_TIME.exec(value.trim());
  const bad = () =>
    usage(
      `${flag} must be an ISO 8601 date or date-time with a zone, such as 2027-01-31 or 2027-01-31T12:00:00Z; got ${quoted(value)}`,
    );
  if (!m) throw bad();
  const [y, mo, d, h = 0, mi = 0, sec = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    v === undefined ? undefined : Number(v),
  ) as number[];
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) throw bad();
  if (h > 23 || mi > 59 || sec > 59 || (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59))) throw bad();
  return Date.UTC(y, mo - 1, d, h, mi, sec, fraction) - offset * 60_000;
}

/** A required or optional free-text flag, held to its column's length on every engine. */
export function text(value: string, flag: string, max: number): string {
  const v = value.trim();
  if (!v) throw usage(`${flag} must not be blank`);
  if (v.length > max) throw usage(`${flag} must be at most ${max} characters; got ${v.length}`);
  return v;
}

/** Turns a unique-constraint violation into a message naming what is taken. */
export async function unique<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}
