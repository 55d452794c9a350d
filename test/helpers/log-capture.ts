import { Writable } from 'node:stream'

export interface CapturedLog {
  /** For Fastify({ logger: { level: 'trace', stream } }). */
  stream: Writable
  lines: string[]
  /** Every line written so far, as one text. */
  text: () => string
  /** Parsed lines. */
  records: () => Array<Record<string, unknown>>
}

/** A pino destination in memory: tests read what would have been logged. */
export function captureLog (): CapturedLog {
  const lines: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    }
  })
  return {
    stream,
    lines,
    text: () => lines.join(''),
    records: () => lines.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
  }
}
