/**
 * Everything the run starts registers how to undo it here; the undo steps run once, last
 * registered first, at the end of the run or on Ctrl-C / SIGTERM, so no server or temporary
 * folder outlives the script.
 */
type Step = { name: string; undo: () => Promise<void> | void };

const steps: Step[] = [];
let running: Promise<void> | undefined;

export function onCleanup(name: string, undo: Step['undo']): void {
  steps.push({ name, undo });
}

export function cleanup(): Promise<void> {
  running ??= (async () => {
    for (let step = steps.pop(); step; step = steps.pop()) {
      try {
        await step.undo();
      } catch (error) {
        process.stderr.write(`cleanup: ${step.name} failed: ${(error as Error).message}\n`);
      }
    }
  })();
  return running;
}

/** Ctrl-C and SIGTERM: clean up, then exit with the conventional 128 + signal number. */
export function cleanUpOnSignals(): void {
  const handle = (signal: NodeJS.Signals, code: number) => {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping servers and removing temporary files…\n`);
      void cleanup().finally(() => process.exit(code));
    });
  };
  handle('SIGINT', 130);
  handle('SIGTERM', 143);
}
