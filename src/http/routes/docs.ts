// The contract for humans: GET /openapi.yaml, and Swagger UI at /docs served from the installed package.
import express, { type Router } from 'express';
import { caseSensitiveRouter } from '../router';
// The package's main module loads the whole UI bundle into the server; only its folder is needed here.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import type { Contract } from '../openapi';

// Replaces the package's initializer, which points at a demo API on the internet.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.yaml',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

export function docsRoutes(contract: Contract): Router {
  // Strict, so that '/docs' (redirected) and '/docs/' (the page) are different routes.
  const router = caseSensitiveRouter({ strict: true });
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(contract.text);
  });
  router.get('/docs', (_req, res) => res.redirect(301, '/docs/'));
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.use(
    '/docs/',
    (_req, res, next) => {
      // Not a route, so logs and metrics would call these requests unmatched.
      res.locals.route = '/docs/:asset';
      next();
    },
    express.static(getAbsoluteFSPath(), { index: 'index.html', redirect: false }),
  );
  return router;
}
