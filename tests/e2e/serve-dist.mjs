// A static server for the built site, run as its own process so callers stop it by its PID.
//   node serve-dist.mjs DIR [--gzip] [--etag] [--prefix /sub/path]
// Binds 127.0.0.1 on a port the kernel chooses free, prints "port N" on its first stdout line, serves DIR with the
// right MIME types (application/wasm for streaming compilation) and, with --gzip, gzip -9 bodies to clients that
// accept it (what a static host does; used for transfer-size and Lighthouse figures). Gzip bodies are compressed once
// per file version and kept in memory, as a host serving precompressed files would, so response times do not include
// compressing the wasm on every request. With --etag, responses carry an ETag and a matching If-None-Match gets
// 304 Not Modified (what lets a browser's second load use its cache; perf.mjs's warm loads). Every request is logged
// to stderr as "GET /path STATUS BYTES" so tests can check nothing 404s.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const args = process.argv.slice(2);
const root = path.resolve(args[0] ?? 'dist');
const gzip = args.includes('--gzip');
const etags = args.includes('--etag');
const prefixAt = args.indexOf('--prefix');
const prefix = prefixAt >= 0 ? args[prefixAt + 1].replace(/\/$/, '') : '';
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
  '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.ts': 'text/plain; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
};

// file -> { key, body }: the gzip -9 body of the file version (size and mtime) last compressed.
const gzipped = new Map();
function gzipOf(file, stat, raw) {
  const key = `${stat.size}-${stat.mtimeMs}`;
  const hit = gzipped.get(file);
  if (hit?.key === key) return hit.body;
  const body = zlib.gzipSync(raw, { level: 9 });
  gzipped.set(file, { key, body });
  return body;
}

const server = http.createServer((req, res) => {
  let status = 200;
  let sent = 0;
  try {
    const url = new URL(req.url, 'http://x');
    let p = decodeURIComponent(url.pathname);
    if (prefix && !p.startsWith(prefix + '/')) status = 404;
    else {
      p = p.slice(prefix.length);
      if (p.endsWith('/')) p += 'index.html';
      const file = path.join(root, path.normalize(p));
      if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) status = 404;
      else {
        const stat = fs.statSync(file);
        const headers = { 'content-type': types[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
        const zipped = gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
        if (etags) {
          headers.etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}${zipped ? '-gz' : ''}"`;
          if (gzip) headers.vary = 'Accept-Encoding';
        }
        if (etags && req.headers['if-none-match'] === headers.etag) {
          status = 304;
          res.writeHead(304, headers);
          res.end();
        } else {
          let body = fs.readFileSync(file);
          if (zipped) {
            body = gzipOf(file, stat, body);
            headers['content-encoding'] = 'gzip';
          }
          headers['content-length'] = body.length;
          res.writeHead(200, headers);
          res.end(req.method === 'HEAD' ? undefined : body);
          sent = body.length;
        }
      }
    }
    if (status !== 200 && status !== 304) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  } catch (e) {
    status = 400;
    res.writeHead(400);
    res.end();
  }
  process.stderr.write(`${req.method} ${req.url} ${status} ${sent}\n`);
});
server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
