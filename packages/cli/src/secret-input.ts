/*
 * How `kappa login` gets the token without it ever being in argv (issue 30,
 * finding 12): argv is readable by every user of the machine (`ps`,
 * /proc/<pid>/cmdline) and lands in shell history. Like `gh auth login
 * --with-token`, the token comes from standard input when it is piped, and
 * from a prompt that does not echo when it is a terminal.
 */

export interface SecretSource {
  /** Standard input is a terminal (a person typing), not a pipe or file. */
  isTTY: boolean;
  /** All of standard input (piped). */
  readAll: () => Promise<string>;
  /** One line typed at a prompt, not echoed. */
  prompt: (question: string) => Promise<string>;
}

/** The first line of what was read, trimmed; refused when empty. */
export function firstLine(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== "")?.trim() ?? "";
  if (!line) throw new Error("No token on standard input: pipe it, e.g. `kappa login --url <portal> --with-token < token.txt`.");
  return line;
}

export async function readToken(source: SecretSource): Promise<string> {
  if (source.isTTY) return firstLine(await source.prompt("Paste your API token (kappa_…, not shown): "));
  return firstLine(await source.readAll());
}

/** The process's own standard input. */
export const processStdin: SecretSource = {
  isTTY: Boolean(process.stdin.isTTY),
  readAll: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString("utf8");
  },
  prompt: (question) =>
    new Promise((resolve, reject) => {
      const stdin = process.stdin;
      process.stderr.write(question);
      stdin.setRawMode(true);
      stdin.resume();
      stdin.setEncoding("utf8");
      let typed = "";
      const done = (error?: Error) => {
        stdin.setRawMode(false);
        stdin.pause();
        stdin.off("data", onData);
        process.stderr.write("\n");
        if (error) reject(error);
        else resolve(typed);
      };
      // Raw mode: nothing is echoed; Enter ends the line, Ctrl-C or Ctrl-D cancel, Backspace deletes.
      const onData = (data: string) => {
        for (const ch of data) {
          if (ch === "\r" || ch === "\n") return done();
          if (ch === "\u0003" || ch === "\u0004") return done(new Error("Cancelled."));
          if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      stdin.on("data", onData);
    }),
};
