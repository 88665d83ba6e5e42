// Compressed JSON bodies, read here rather than by express.json, so that BODY_MEMORY_LIMIT counts what they inflate
// to as they inflate: their Content-Length says nothing of it (a 1 KB gzip may hold 1 MB of JSON).
import { type Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { parse as parseContentType } from 'content-type';
import type { NextFunction, Request, Response } from 'express';
import type { ByteBudget } from './admission';
import { closeAfterAnswer } from './closing';

/** The Content-Encoding of a request, lower case; `identity` when it names none. */
export const contentEncoding = (req: Request): string => (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';

/** What express.json inflated before these bodies were read here: the same encodings stay accepted. */
const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** An error the error handler maps as it maps body-parser's (the `type`s are body-parser's). */
const bodyError = (status: number, type: string, message: string): Error => Object.assign(new Error(message), { status, type });

class NoRoom extends Error {}
class ClientGone extends Error {}

export interface CompressedBodyLimits {
  budget: ByteBudget;
  /** Inflated bytes a body may hold without taking any of the budget (BODY_MEMORY_LIMIT / MAX_CONNECTIONS). */
  freeBytes: number;
  /** BODY_LIMIT: the most a body may inflate to; past it the answer is 413. */
  limitBytes: number;
}

/**
 * Inflates and parses a compressed JSON body into req.body (express.json then finds the request read and skips it).
 * Up to `freeBytes` of inflated JSON is always read, as a small plain body is. Past that the body takes BODY_LIMIT of
 * the budget, the most it may inflate to, as a body of no declared length does, and inflates nothing more until it
 * has it: one that finds no room for 5 s gets 503 server_busy. The room goes back when the answer is sent.
 */
export function readCompressedJson(req: Request, res: Response, next: NextFunction, limits: CompressedBodyLimits): void {
  const decoder = DECODERS[contentEncoding(req)];
  if (!decoder) {
    next(bodyError(415, 'encoding.unsupported', 'unsupported content encoding'));
    return;
  }
  let charset: string | undefined;
  try {
    charset = parseContentType(req.headers['content-type'] ?? '').parameters.charset?.toLowerCase();
  } catch {
    charset = undefined;
  }
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    next(bodyError(415, 'charset.unsupported', 'unsupported charset'));
    return;
  }

  let release: (() => void) | undefined;
  let gone = false;
  res.once('close', () => {
    gone = true;
    release?.();
  });
  const chunks: Buffer[] = [];
  let inflated = 0;
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > limits.limitBytes) {
        done(bodyError(413, 'entity.too.large', 'request entity too large'));
        return;
      }
      chunks.push(chunk);
      if (release || inflated <= limits.freeBytes) {
        done();
        return;
      }
      limits.budget.take(limits.limitBytes).then((granted) => {
        if (!granted) done(new NoRoom());
        else if (gone) {
          granted();
          done(new ClientGone());
        } else {
          release = granted;
          done();
        }
      }, done);
    },
  });
  const inflating = decoder();
  req.pipe(inflating);
  // A client that leaves mid-body ends the inflating too, rather than leaving it waiting for more.
  req.once('close', () => {
    if (!req.complete) inflating.destroy(new ClientGone());
  });
  pipeline(inflating, collect).then(
    () => {
      if (res.headersSent) return;
      try {
        // TextDecoder drops a byte order mark, as express.json's decoding does.
        const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks));
        chunks.length = 0;
        const body: unknown = text.length === 0 ? {} : JSON.parse(text);
        req.body = body;
      } catch {
        next(bodyError(400, 'entity.parse.failed', 'invalid json'));
        return;
      }
      next();
    },
    (e: unknown) => {
      chunks.length = 0;
      req.unpipe(inflating);
      if (res.headersSent || gone || e instanceof ClientGone) return;
      // The rest of the body is left unread: the connection cannot carry another request.
      closeAfterAnswer(res);
      if (e instanceof NoRoom) limits.budget.refuse(res, 'Other large request bodies fill the memory for bodies');
      // A body that does not inflate (bad gzip data) is the client's error, as express.json answers it.
      else
        next(
          typeof e !== 'object' || e === null || !('status' in e) || e.status === undefined
            ? bodyError(400, 'entity.inflate.failed', 'the body does not inflate')
            : e,
        );
    },
  );
}

/**
 * An NDJSON body as its route reads it, a line at a time (_bulk, _import): a gzip one inflated as it comes, so the
 * line limits apply to what it inflates to. A client that leaves mid-body ends the lines, as it ends those of a plain
 * body. The inflater's errors reach the route through what it reads; one that stopped reading early (an import
 * refused at a line) leaves the rest unread, and their error, heard by nobody, must not end the process.
 */
export function inflatedBody(req: Request): Readable {
  if (contentEncoding(req) !== 'gzip') return req;
  const inflating = zlib.createGunzip();
  inflating.on('error', () => undefined);
  req.pipe(inflating);
  req.once('close', () => {
    if (!req.complete) inflating.destroy(new Error('The client closed the connection.'));
  });
  return inflating;
}
