/*
 * Extensions (docs/extensions.md): hooks around every execute of a gateway, nested ones
 * included, in order, with `prepend` putting one first.
 * Run: npx tsx --conditions=paywire-source examples/guides/extensions.ts
 */
import { Capture, Gateway, type Action, type Context, type Extension } from 'paywire/engine'

class CaptureAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Capture
  }

  execute (): void {}
}

/** Records every hook call: which hook, which extension, which action, how deep. */
class Recorder implements Extension {
  readonly name: string
  readonly seen: string[]
  constructor (name: string, seen: string[]) {
    this.name = name
    this.seen = seen
  }

  // Before an action is chosen: context.action is undefined, and may be set here to choose one.
  onPreExecute (context: Context): void {
    this.seen.push(`${this.name}.onPreExecute depth=${context.previous.length}`)
  }

  // The action is chosen, not run yet.
  onExecute (context: Context): void {
    this.seen.push(`${this.name}.onExecute ${context.action?.constructor.name}`)
  }

  // After it ran, replied (context.reply) or failed (context.exception): may replace either.
  onPostExecute (context: Context): void {
    this.seen.push(`${this.name}.onPostExecute ${context.exception === undefined ? 'ok' : context.exception.message}`)
  }
}

/** `prepend = true` applies to extensions as to actions: it runs before all others. */
class FirstRecorder extends Recorder {
  readonly prepend = true
}

export async function main (): Promise<string[]> {
  const seen: string[] = []
  const gateway = new Gateway()
    .addAction(new CaptureAction())
    .addExtension(new Recorder('audit', seen))
    .addExtension(new FirstRecorder('first', seen))
  await gateway.execute(new Capture({}))
  return seen
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
