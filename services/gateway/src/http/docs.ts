import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const require_ = createRequire(__filename);

/** The Scalar bundle from npm, served by us: the page works with no CDN and no internet. */
const scalarBundle = path.join(path.dirname(require_.resolve('@scalar/api-reference')), 'browser/standalone.js');

/**
 * The renderer's configuration (option names as @scalar/api-reference 1.72.1
 * declares them). Everything that reaches Scalar's hosted services is off:
 * the reference is ours, served from this gateway, and works offline.
 */
export const SCALAR_CONFIG = {
  url: '/v1/openapi.json',
  /** Fonts come from Scalar's CDN. */
  withDefaultFonts: false,
  /** "Ask AI" (the sidebar button and the input under each operation): Scalar's hosted agent. */
  agent: { disabled: true },
  /** "Generate MCP" / "Connect MCP": Scalar's hosted MCP servers. Our MCP server is at /mcp. */
  mcp: { disabled: true },
  /** The developer toolbar ("Share", "Deploy", "Configure"): uploads to Scalar's registry. */
  showDeveloperTools: 'never',
  /** The standalone client opens with links to Scalar's app and download pages. */
  hideClientButton: true,
  telemetry: false,
  /** The sidebar's "Powered by Scalar" link has no option; the dark-mode toggle beside it stays. */
  customCss: '.darklight-reference a[href^="https://www.scalar.com"] { display: none; }',
  /** Operations listed in the registry's order, each with its operationId (the capability name). */
  showOperationId: true,
  defaultOpenAllTags: true,
} as const;

/** The page; the configuration is JSON in a script tag, so tests read exactly what the browser gets. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Web Access API reference</title>
</head>
<body>
  <div id="app"></div>
  <script id="scalar-config" type="application/json">${JSON.stringify(SCALAR_CONFIG)}</script>
  <script src="/docs/scalar.js"></script>
  <script>
    Scalar.createApiReference('#app', JSON.parse(document.getElementById('scalar-config').textContent));
  </script>
</body>
</html>`;

/** `/docs`: the human-readable API reference rendered from `/v1/openapi.json`. */
export function docsRouter(): Router {
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.setHeader(
      'Content-Security-Policy',
      // connect-src 'self': the page talks to this gateway only, whatever a future bundle tries.
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:",
    );
    res.type('html').send(DOCS_PAGE);
  });
  router.get('/docs/scalar.js', (_req, res) => {
    // The bundle sits under node_modules/.pnpm: a dot-directory that `send` hides by default.
    res.sendFile(scalarBundle, { maxAge: '1d', dotfiles: 'allow' });
  });
  return router;
}
