/** A handler that did not settle within handlerTimeoutMs. */
export class HandlerTimeout extends Error {
  readonly handler: string
  readonly timeoutMs: number

  constructor (handler: string, timeoutMs: number) {
    super(`the event handler ${handler} did not finish within ${timeoutMs} ms`)
    this.handler = handler
    this.timeoutMs = timeoutMs
  }
}

/** Runs one handler, or gives up on it after timeoutMs (it may still be running: nothing can stop it). */
export async function callHandler<E> (handler: (event: E) => void | Promise<void>, subscribed: string, event: E, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new HandlerTimeout(`${handler.name === '' ? 'anonymous' : handler.name} (on '${subscribed}')`, timeoutMs)) }, timeoutMs)
    // A process on its way out need not wait for it: the event stays in the outbox.
    timer.unref()
  })
  try {
    await Promise.race([(async () => { await handler(event) })(), timedOut])
  } finally {
    clearTimeout(timer)
  }
}
