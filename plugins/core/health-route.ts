import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { HealthOptions, Paywire } from './engine/index.ts'
import { healthRouteSchema } from './route-schemas.ts'

export interface HealthRouteOptions {
  paywire: Paywire
  path: string
  check: HealthOptions
}

/**
 * The readiness route (the core plugin's `health` option): Paywire.health() as JSON, 503 when
 * down so a load balancer or Kubernetes stops sending buyers to an instance that cannot
 * store their payments; 200 when degraded (events wait, but payments are taken).
 */
export const paywireHealthRoute: FastifyPluginAsync<HealthRouteOptions> = async function paywireHealthRoute (app, { paywire, path, check }) {
  app.get(path, { schema: healthRouteSchema }, async function paywireHealth (_request, reply): Promise<FastifyReply> {
    const report = await paywire.health(check)
    // A probe must see the instance as it is now, never a cached answer.
    return await reply.code(report.status === 'down' ? 503 : 200).header('cache-control', 'no-store').send(report)
  })
}
