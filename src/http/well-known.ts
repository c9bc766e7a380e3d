// The app deep-link documents at /.well-known/apple-app-site-association and
// /.well-known/assetlinks.json (src/domain/app-links.ts), on the host that stores them: the
// shared short domain's (the operator's) on its host, an ACTIVE custom domain's on its own,
// nothing on any other host. Phones fetch them without following redirects and read them only
// as JSON with status 200, so they are answered here as stored, before anything else can
// redirect or wrap them. What a host serves is kept per host in this process and forgotten on
// any change of app links or domains, by any process (the change feed, src/start/server.ts).
import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../db/knex.ts';
import { appLinksOfHost } from '../db/repos/app-links.ts';
import { WELL_KNOWN_PATHS, type AppLinksText } from '../domain/app-links.ts';
import { notFound } from '../domain/errors.ts';
import { hostnameOf } from '../redirect/visitor.ts';

/** Hosts kept at most: a Host header is the client's to choose, so the map is bounded. */
const MAX_HOSTS = 10_000;

export class WellKnownFiles {
  private readonly hosts = new Map<string, AppLinksText | Promise<AppLinksText>>();
  private generation = 0;
  private readonly shortHost: string;

  constructor(
    private readonly knex: Db,
    shortDomain: string,
  ) {
    this.shortHost = hostnameOf(shortDomain);
  }

  /** Forgets every host's documents: they or a domain changed. */
  forget(): void {
    this.generation++;
    this.hosts.clear();
  }

  private documentsOf(host: string): AppLinksText | Promise<AppLinksText> {
    const known = this.hosts.get(host);
    if (known !== undefined) return known;
    if (this.hosts.size >= MAX_HOSTS) this.hosts.clear();
    const generation = this.generation;
    const read = appLinksOfHost(this.knex, host, this.shortHost).then(
      (docs) => {
        // A read that a change overtook is not kept: it may hold the documents as they were.
        if (generation === this.generation) this.hosts.set(host, docs);
        else this.hosts.delete(host);
        return docs;
      },
      (err) => {
        this.hosts.delete(host);
        throw err;
      },
    );
    this.hosts.set(host, read);
    return read;
  }

  /** Express middleware: answers the two paths (GET, HEAD), passes everything else on. */
  readonly serve = (req: Request, res: Response, next: NextFunction): void => {
    const which = WELL_KNOWN_PATHS[req.path];
    if (which === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    Promise.resolve(this.documentsOf(hostnameOf(req.headers.host ?? ''))).then((docs) => {
      const text = docs[which];
      if (text === null) return next(notFound(`This host has no ${req.path.slice('/.well-known/'.length)}`));
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // Phones fetch these once in a while; a change should reach them soon, not after a day.
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.status(200).send(Buffer.from(text));
    }, next);
  };
}
