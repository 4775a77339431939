// Writes the doc-site projects of docs/embedding.md from the guide's own code blocks, so the docsites test tests the
// guide as an author would copy it:
//   node extract.mjs GUIDE OUT
// A block belongs to a site when an HTML comment right before its fence names it (GitHub and every generator hide the
// comment):
//   <!-- docsite: SITE [SITE…] file PATH -->  the block is the file PATH of each SITE's project
//   <!-- docsite: SITE [SITE…] run -->        the block is a shell step run in each SITE's project, in order
// Then tests/docsites/SITE/ adds what a test page needs beyond the guide (a second page, host elements to compare):
// its files are copied into the project, except that FILE.append is appended to the guide's FILE. A fixture may not
// replace a file the guide writes. Each project gets build.sh (the run steps) and a list of what came from where.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The annotated blocks of a Markdown text: [{ sites, kind: 'file'|'run', file, body, line }]. */
export function annotatedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^<!-- docsite: ([a-z0-9 -]+?) (file (\S+)|run) -->$/.exec(lines[i].trim());
    if (!m) continue;
    const open = /^(`{3,}|~{3,})/.exec(lines[i + 1] ?? '');
    if (!open) throw new Error(`line ${i + 1}: a docsite comment must be followed by a fenced block`);
    const body = [];
    let j = i + 2;
    for (; j < lines.length && !lines[j].startsWith(open[1]); j++) body.push(lines[j]);
    if (j === lines.length) throw new Error(`line ${i + 2}: the fence never closes`);
    blocks.push({ sites: m[1].split(/\s+/), kind: m[3] ? 'file' : 'run', file: m[3], body: body.join('\n') + '\n', line: i + 1 });
    i = j;
  }
  return blocks;
}

function copyFixture(dir, project, written, log) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const from = path.join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.relative(dir, from);
    const append = rel.endsWith('.append');
    const target = append ? rel.slice(0, -'.append'.length) : rel;
    if (append !== written.has(target)) {
      throw new Error(append ? `${from}: the guide writes no ${target} to append to` : `${from}: would replace the guide's ${target}`);
    }
    fs.mkdirSync(path.dirname(path.join(project, target)), { recursive: true });
    fs[append ? 'appendFileSync' : 'writeFileSync'](path.join(project, target), fs.readFileSync(from));
    log.push(`${target}: ${append ? 'appended' : 'written'} from tests/docsites/${path.relative(here, from)}`);
  }
}

/** Writes OUT/SITE/ for every site the guide names; returns the site names. */
export function extract(guide, out) {
  const blocks = annotatedBlocks(fs.readFileSync(guide, 'utf8'));
  const sites = [...new Set(blocks.flatMap((b) => b.sites))];
  for (const site of sites) {
    const project = path.join(out, site);
    fs.rmSync(project, { recursive: true, force: true });
    fs.mkdirSync(project, { recursive: true });
    const written = new Set();
    const log = [];
    const steps = ['set -euo pipefail'];
    for (const b of blocks.filter((x) => x.sites.includes(site))) {
      if (b.kind === 'run') {
        steps.push(`# ${path.basename(guide)} line ${b.line}`, b.body.trimEnd());
        continue;
      }
      if (written.has(b.file)) throw new Error(`${guide}:${b.line}: ${site} gets ${b.file} twice`);
      written.add(b.file);
      fs.mkdirSync(path.dirname(path.join(project, b.file)), { recursive: true });
      fs.writeFileSync(path.join(project, b.file), b.body);
      log.push(`${b.file}: ${path.basename(guide)} line ${b.line}`);
    }
    if (steps.length === 1) throw new Error(`${guide}: ${site} has no run step`);
    const fixture = path.join(here, site);
    if (fs.existsSync(fixture)) copyFixture(fixture, project, written, log);
    fs.writeFileSync(path.join(project, '.docsite-build.sh'), steps.join('\n') + '\n');
    fs.writeFileSync(path.join(project, '.docsite-sources.txt'), log.join('\n') + '\n');
  }
  return sites;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [guide, out] = process.argv.slice(2);
  if (!guide || !out) {
    console.error('usage: node extract.mjs GUIDE OUT');
    process.exit(2);
  }
  console.log(extract(guide, out).join(' '));
}
