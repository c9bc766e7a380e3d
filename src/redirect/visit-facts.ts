// A visit as routing reads it (domain/routing.ts VisitFacts), from the request on the redirect or
// from "Try a visit"'s form: each fact computed the first time a condition asks for it, so a
// link whose rules read only the query never parses its User-Agent or looks up its address.
import { parseAddress } from '../domain/addresses.ts';
import type { PlaceLookup, VisitFacts } from '../domain/routing.ts';
import { type AgentTraits, agentTraits, preferredLanguage, queryHas, queryParams } from '../domain/visitor-traits.ts';

export interface VisitInputs {
  now: number;
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  /** The country a trusted proxy reported (CF-IPCountry); it wins over the address's. */
  trustedCountry: string | undefined;
  /** The client address as the trusted proxy saw it; asked for only when a rule needs it. */
  address: () => string | undefined;
  rawQuery: string | null;
}

type Place = { country: string | null; city: string | null } | null;

export class Facts implements VisitFacts {
  readonly now: number;
  private traits: AgentTraits | undefined;
  private text: { value: string | undefined } | undefined;
  private place: Place | undefined;
  private addr: ReturnType<typeof parseAddress> | undefined;
  private params: Map<string, string[]> | undefined;

  constructor(
    private readonly v: VisitInputs,
    private readonly geo: PlaceLookup | null,
  ) {
    this.now = v.now;
  }
  get rawQuery(): string | null {
    return this.v.rawQuery;
  }
  private get agent(): AgentTraits {
    if (this.traits === undefined) this.traits = agentTraits(this.v.userAgent);
    return this.traits;
  }
  device() {
    return this.agent.device;
  }
  os() {
    return this.agent.os;
  }
  browser() {
    return this.agent.browser;
  }
  language() {
    return preferredLanguage(this.v.acceptLanguage);
  }
  country() {
    const c = this.v.trustedCountry;
    if (c && /^[A-Za-z]{2}$/.test(c) && c.toUpperCase() !== 'XX') return c.toUpperCase();
    return this.located()?.country ?? null;
  }
  city() {
    return this.located()?.city ?? null;
  }
  /** The client address as text, read from the request once. */
  addressText(): string | undefined {
    if (this.text === undefined) this.text = { value: this.v.address() };
    return this.text.value;
  }
  address() {
    if (this.addr === undefined) this.addr = parseAddress(this.addressText());
    return this.addr;
  }
  query() {
    if (this.params === undefined) this.params = queryParams(this.v.rawQuery);
    return this.params;
  }
  queryHas(name: string, value: string | undefined) {
    return queryHas(this.v.rawQuery, name, value);
  }
  private located(): Place {
    if (this.place === undefined) {
      const a = this.address();
      this.place = a !== null && this.geo !== null ? this.geo.locate(a.text) : null;
    }
    return this.place;
  }
}
