import { commands } from './cli/commands.js';
import type { CliIo } from './cli/context.js';
import { ownValue } from './own-keys.js';

const io: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

function usage(): string {
  return ['usage: compliance COMMAND (in a clone: npm run -s cli -- COMMAND)', ...Object.values(commands).map((c) => `  ${c.help}`)].join(
    '\n',
  );
}

async function main(argv: string[]): Promise<number> {
  for (let words = Math.min(argv.length, 3); words > 0; words--) {
    const entry = ownValue(commands, argv.slice(0, words).join(' '));
    if (entry) return (await entry.load())(argv.slice(words), io);
  }
  io.err(usage());
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    io.err(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
