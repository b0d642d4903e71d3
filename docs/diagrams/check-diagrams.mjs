// Parses every ```mermaid block of the Markdown files named on the command line with Mermaid's own
// parser, as GitHub renders them, and exits 1 naming each block that does not parse. Mermaid reads
// ';' as the end of a statement and fails on what follows it in a message.
import { JSDOM } from 'jsdom';
import fs from 'fs';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let parsed = 0;
const failed = [];
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  for (const block of text.matchAll(/```mermaid\n([\s\S]*?)```/g)) {
    const line = text.slice(0, block.index).split('\n').length;
    try {
      await mermaid.parse(block[1]);
      parsed++;
    } catch (e) {
      failed.push(`${file}:${line}: ${String(e.message || e).split('\n').slice(0, 3).join(' ')}`);
    }
  }
}
failed.forEach((f) => console.error(f));
console.log(`Mermaid diagrams: ${parsed} parsed, ${failed.length} refused`);
process.exit(failed.length ? 1 : 0);
