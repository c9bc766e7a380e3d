// What the ids of a conversion summary are called, for people: a link's slug and host, a
// campaign's name, a QR code's link. Only objects of the workspace asked about; deleted links and
// QR codes too (a summary keeps counting their conversions).
import type { Knex } from 'knex';

export interface NamedLink {
  id: string;
  slug: string;
  title: string | null;
  /** The custom domain's host, null on the shared short domain. */
  host: string | null;
  deleted: boolean;
}
export interface NamedQrCode {
  id: string;
  linkId: string;
  slug: string;
  host: string | null;
  deleted: boolean;
}
export interface ConversionNames {
  links: NamedLink[];
  campaigns: Array<{ id: string; name: string }>;
  qrCodes: NamedQrCode[];
}

/** Ids per query: well below either engine's limit of bound values. */
const CHUNK = 500;

async function inChunks<T>(ids: string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  const out: T[] = [];
  for (let i = 0; i < unique.length; i += CHUNK) out.push(...(await read(unique.slice(i, i + CHUNK))));
  return out;
}

export async function conversionNames(
  knex: Knex,
  workspaceId: string,
  ids: { links: string[]; campaigns: string[]; qrCodes: string[] },
): Promise<ConversionNames> {
  const links = await inChunks(ids.links, (chunk) =>
    knex('links')
      .leftJoin('domains', 'domains.id', 'links.domain_id')
      .where('links.workspace_id', workspaceId)
      .whereIn('links.id', chunk)
      .select('links.id', 'links.slug', 'links.title', 'links.deleted_at', 'domains.host'),
  );
  const campaigns = await inChunks(ids.campaigns, (chunk) =>
    knex('campaigns').where('workspace_id', workspaceId).whereIn('id', chunk).select('id', 'name'),
  );
  const qrCodes = await inChunks(ids.qrCodes, (chunk) =>
    knex('qr_codes')
      .join('links', 'links.id', 'qr_codes.link_id')
      .leftJoin('domains', 'domains.id', 'links.domain_id')
      .where('qr_codes.workspace_id', workspaceId)
      .whereIn('qr_codes.id', chunk)
      .select(
        'qr_codes.id',
        'qr_codes.link_id',
        'qr_codes.deleted_at',
        'links.slug',
        'links.deleted_at as link_deleted_at',
        'domains.host',
      ),
  );
  return {
    links: links.map((r: any) => ({
      id: r.id,
      slug: r.slug,
      title: r.title ?? null,
      host: r.host ?? null,
      deleted: r.deleted_at !== null && r.deleted_at !== undefined,
    })),
    campaigns: campaigns.map((r: any) => ({ id: r.id, name: r.name })),
    qrCodes: qrCodes.map((r: any) => ({
      id: r.id,
      linkId: r.link_id,
      slug: r.slug,
      host: r.host ?? null,
      deleted: r.deleted_at != null || r.link_deleted_at != null,
    })),
  };
}
