/**
 * Stores what the current gateway execution changed so far, keeping its claim on the
 * payment: the write-ahead step before a provider call. A gateway stores the idempotency
 * id of a call (PayPal-Request-Id) and then takes a checkpoint, so that a crash or a lost
 * answer after the call can only ever repeat the call with the same id:
 *
 *   record.paywire_request_ids.create = id
 *   await this.gateway.execute(new Checkpoint())
 *   await api.createPayment(body, id)
 *
 * The storage extension does the work; without one (a gateway used without storages) it
 * does nothing. It fails with PAYWIRE_ERR_CONCURRENT_UPDATE or PAYWIRE_ERR_CLAIM_LOST when
 * the payment was changed or claimed by another request meanwhile: then the call must not
 * be made.
 */
export class Checkpoint {}
