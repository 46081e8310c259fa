// A monitor's snapshot page (docs/monitors.md, "Delivery"): what a
// notification links to, so its reader sees the watched text before and
// after a change without an API key.
//
// - GET /snapshots/{id}?exp&sig   the snapshot's text, its diff and a link to the one before (HTML)
//
// The monitor service signs the links and checks them (the link is the
// access); a forged, changed or expired link, or a deleted monitor's, answers
// not_found without telling which.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import type { monitor } from '@wap/proto';
import { Router } from 'express';
import type { Upstreams } from '../clients/upstreams.js';
import { escapeHtml } from './html.js';

const POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function snapshotHtml(s: monitor.GetSnapshotResponse): string {
  const taken = s.takenAt ? timestampDate(s.takenAt).toISOString() : '';
  const words = (label: string, list: string[], colour: string) =>
    list.length === 0
      ? ''
      : `<h2>${label}</h2><ul>${list.map((w) => `<li style="background:${colour}">${escapeHtml(w)}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Snapshot of ${escapeHtml(s.url)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}ul{padding-left:1.2rem}li{margin:.2rem 0}</style>
</head><body>
<h1>Snapshot</h1>
<p><a href="${escapeHtml(s.url)}" rel="noreferrer noopener">${escapeHtml(s.url)}</a>, taken <time>${taken}</time>.
${s.previousUrl ? `<a href="${escapeHtml(s.previousUrl)}">The snapshot before</a>.` : 'The first snapshot (the baseline).'}</p>
${words('Added', s.added, '#e6ffec')}${words('Removed', s.removed, '#ffebe9')}
<h2>Text compared</h2>
<pre>${escapeHtml(s.text)}</pre>
</body></html>`;
}

export function snapshotsRouter(deps: { upstreams: Upstreams }): Router {
  const router = Router();
  router.get('/snapshots/:id', async (req, res, next) => {
    try {
      const { exp, sig } = req.query;
      if (typeof exp !== 'string' || !/^\d{1,12}$/.test(exp) || typeof sig !== 'string' || sig.length > 100)
        throw new ApiError('not_found');
      const snapshot = await deps.upstreams.monitor.getSnapshot({
        snapshotId: String(req.params.id).toLowerCase(),
        expires: BigInt(exp),
        signature: sig,
      });
      res
        .type('html')
        .set({
          'Cache-Control': 'private, no-store',
          'Content-Security-Policy': POLICY,
          'Referrer-Policy': 'no-referrer',
          'X-Content-Type-Options': 'nosniff',
        })
        .send(snapshotHtml(snapshot));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
