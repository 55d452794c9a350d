import { performance } from 'node:perf_hooks'

/*
 * Deadlines of Redis calls counted from when each was issued (see guarded() in keys.ts). A
 * timer and a Promise.race per call cost every commit two timer-list operations and four
 * promises. The calls of one duration expire in the order they were issued, so they wait in
 * one queue behind one timer, armed for the oldest: a call that settles leaves the queue once
 * the calls before it have, and the timer, when it fires, fails what expired and re-arms for
 * the oldest call still in flight. Serial calls re-arm it once per duration, not once each.
 */

/** What the call's waiter is told when its deadline passes first. */
export const DEADLINE_MESSAGE = 'Command timed out'

interface Entry {
  at: number
  settled: boolean
  expire: ((error: Error) => void) | undefined
}

class DeadlineQueue {
  readonly #ms: number
  #entries: Entry[] = []
  #head = 0
  #unsettled = 0
  #timer: NodeJS.Timeout | undefined

  constructor (ms: number) {
    this.#ms = ms
  }

  add (expire: (error: Error) => void): Entry {
    const entry = { at: performance.now() + this.#ms, settled: false, expire }
    this.#entries.push(entry)
    if (++this.#unsettled === 1) {
      if (this.#timer === undefined) this.#timer = setTimeout(this.#fire, this.#ms)
      // A call in flight keeps the process alive until its deadline, as its own timer did.
      else this.#timer.ref()
    }
    return entry
  }

  /** True for the first of the call's answer and its deadline: only that one is acted on. */
  settle (entry: Entry): boolean {
    if (entry.settled) return false
    entry.settled = true
    entry.expire = undefined
    // Calls mostly answer in the order they were issued: drop them as they do, so the queue
    // holds the calls in flight and not every call of the last `ms`.
    this.#dropSettled()
    // None in flight: the timer still fires to drop what is left, but holds nothing open.
    if (--this.#unsettled === 0) this.#timer?.unref()
    return true
  }

  #dropSettled (): void {
    const entries = this.#entries
    while (this.#head < entries.length && (entries[this.#head] as Entry).settled) this.#head++
    if (this.#head === entries.length) {
      entries.length = 0
      this.#head = 0
    } else if (this.#head > 1024 && this.#head * 2 > entries.length) {
      this.#entries = entries.slice(this.#head)
      this.#head = 0
    }
  }

  readonly #fire = (): void => {
    this.#timer = undefined
    const now = performance.now()
    for (;;) {
      const head = this.#entries[this.#head]
      if (head === undefined) return
      if (head.at > now) {
        // The head is a call still in flight (settle() dropped those that answered): wait for its deadline.
        this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(head.at - now)))
        return
      }
      const expire = head.expire
      if (this.settle(head)) expire?.(new Error(DEADLINE_MESSAGE))
    }
  }
}

/** One queue per duration: a client's commandTimeout, so a few at most. */
const queues = new Map<number, DeadlineQueue>()

/**
 * The call's outcome, or a rejection with DEADLINE_MESSAGE once `ms` have passed since now;
 * `failed` maps either failure. A call that settles after its deadline is ignored.
 */
export function withDeadline<T> (call: Promise<T>, ms: number, failed: (error: unknown) => Error): Promise<T> {
  let queue = queues.get(ms)
  if (queue === undefined) queues.set(ms, queue = new DeadlineQueue(ms))
  const deadlines = queue
  return new Promise<T>((resolve, reject) => {
    const entry = deadlines.add((error) => { reject(failed(error)) })
    call.then((value) => {
      if (deadlines.settle(entry)) resolve(value)
    }, (error: unknown) => {
      if (deadlines.settle(entry)) reject(failed(error))
    })
  })
}
