// A bare node:http server answering fixed bytes: the floor the gateway is compared to.
import { createServer } from 'node:http';

const { body, contentType } = JSON.parse(process.argv[2] ?? '{}') as { body: string; contentType: string };
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
