import { Agent, request, type Dispatcher } from 'undici'

export interface HttpRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string
  /** Whole-request budget in milliseconds (connect, headers and body). */
  timeoutMs?: number
  /** Budget for establishing the connection, in milliseconds. */
  connectTimeoutMs?: number
}

export interface HttpResponse {
  statusCode: number
  headers: Record<string, string>
  body: string
}

/**
 * How gateways talk HTTP. Also the service id: replace the default with
 * builder.addGlobalService(HttpClient, yourClient) to add proxies, tracing or recording.
 * Implementations reject on network errors and timeouts and resolve on any HTTP status.
 */
export abstract class HttpClient {
  abstract send (request: HttpRequest): Promise<HttpResponse>
}

/** The default client, on undici. One connection pool per connect timeout. */
export class UndiciHttpClient extends HttpClient {
  #agents = new Map<number, Agent>()

  async send (input: HttpRequest): Promise<HttpResponse> {
    const options: Parameters<typeof request>[1] = {
      method: input.method as Dispatcher.HttpMethod,
      headers: input.headers,
      body: input.body
    }
    if (input.timeoutMs !== undefined) options.signal = AbortSignal.timeout(input.timeoutMs)
    if (input.connectTimeoutMs !== undefined) options.dispatcher = this.#agent(input.connectTimeoutMs)
    const response = await request(input.url, options)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
    }
    return { statusCode: response.statusCode, headers, body: await response.body.text() }
  }

  async close (): Promise<void> {
    await Promise.all([...this.#agents.values()].map((agent) => agent.close()))
    this.#agents.clear()
  }

  #agent (connectTimeoutMs: number): Agent {
    let agent = this.#agents.get(connectTimeoutMs)
    if (agent === undefined) {
      agent = new Agent({ connect: { timeout: connectTimeoutMs } })
      this.#agents.set(connectTimeoutMs, agent)
    }
    return agent
  }
}
