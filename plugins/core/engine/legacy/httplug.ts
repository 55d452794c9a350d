import type { ServiceContainer } from '../di/service-container.ts'
import { HttpClient, type HttpRequest } from '../http-client.ts'
import { engineEntry } from './config.ts'

/*
 * What the deprecated httplug.* keys of a 1.x config resolve to. 2.0 needs no factory
 * services: an HttpRequest is a plain object with a string body, sent by the HttpClient
 * service. These shims only keep 1.x API classes that were handed factories working.
 */

/** httplug.message_factory (deprecated, PAYWIREDEP010): builds the plain HttpRequest objects HttpClient sends. */
export class LegacyMessageFactory {
  createRequest (method: string, uri: string, headers: Record<string, string> = {}, body?: string): HttpRequest {
    return { method, url: uri, headers, body }
  }
}

/** httplug.stream_factory (deprecated, PAYWIREDEP009): bodies are strings. */
export class LegacyStreamFactory {
  createStream (content = ''): string {
    return content
  }
}

/** The HTTP entries of every 1.x config; paywire.http_client and httplug.client are the container's HttpClient. */
export function httpConfig (container: ServiceContainer): Record<string, unknown> {
  const client = engineEntry(() => container.get(HttpClient))
  return {
    'paywire.http_client': client,
    'httplug.client': client,
    'httplug.message_factory': engineEntry(() => new LegacyMessageFactory()),
    'httplug.stream_factory': engineEntry(() => new LegacyStreamFactory())
  }
}
