import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const require_ = createRequire(__filename);

/** The Scalar bundle from npm, served by us: the page works with no CDN and no internet. */
const scalarBundle = path.join(path.dirname(require_.resolve('@scalar/api-reference')), 'browser/standalone.js');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Web Access API reference</title>
</head>
<body>
  <div id="app"></div>
  <script src="/docs/scalar.js"></script>
  <script>
    Scalar.createApiReference('#app', {
      url: '/v1/openapi.json',
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
    });
  </script>
</body>
</html>`;

/** `/docs`: the human-readable API reference rendered from `/v1/openapi.json`. */
export function docsRouter(): Router {
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    );
    res.type('html').send(PAGE);
  });
  router.get('/docs/scalar.js', (_req, res) => {
    // The bundle sits under node_modules/.pnpm: a dot-directory that `send` hides by default.
    res.sendFile(scalarBundle, { maxAge: '1d', dotfiles: 'allow' });
  });
  return router;
}
