/*
 * Migration 5: payments' facets (PaymentSearch), one row per payment, written by the commit
 * in its transaction. The record's commit function (migration 4) is left as it is: a new
 * function calls it and, when it answers 'ok', stores or deletes each write's facets, so
 * the facets are never older or newer than the record.
 *
 * Searches page newest first by keyset (created_at, id), never OFFSET: each filter a search
 * drives by has a btree ending in (created_at DESC, id DESC); provider ids are a GIN-indexed
 * array; the sweeper reads the partial index of payments that will need attention.
 */
export function searchMigration (s: string): string {
  return `
CREATE TABLE ${s}.payment_facets (
  model text NOT NULL,
  id text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  gateway text NOT NULL,
  status text NOT NULL,
  currency text NOT NULL,
  total_amount bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  attention_at timestamptz,
  provider_ids text[] NOT NULL,
  facets jsonb NOT NULL
);
CREATE UNIQUE INDEX payment_facets_id ON ${s}.payment_facets (model, md5(id));
CREATE INDEX payment_facets_created ON ${s}.payment_facets (model, created_at DESC, id DESC);
CREATE INDEX payment_facets_status ON ${s}.payment_facets (model, status, created_at DESC, id DESC);
CREATE INDEX payment_facets_gateway ON ${s}.payment_facets (model, gateway, created_at DESC, id DESC);
CREATE INDEX payment_facets_currency ON ${s}.payment_facets (model, currency, created_at DESC, id DESC);
CREATE INDEX payment_facets_attention ON ${s}.payment_facets (model, attention_at, id) WHERE attention_at IS NOT NULL;
CREATE INDEX payment_facets_providers ON ${s}.payment_facets USING gin (provider_ids);

-- Stores one payment's facets (model, id, the record's new version, the facets as its write
-- carries them),
-- unless facets of a later version are there already.
CREATE FUNCTION ${s}.paywire_put_facets(text, text, bigint, jsonb) RETURNS void LANGUAGE sql AS $fn$
  INSERT INTO ${s}.payment_facets AS p (model, id, version, gateway, status, currency, total_amount, created_at, updated_at,
      attention_at, provider_ids, facets)
    VALUES ($1, $2, $3, $4->>'gatewayName', $4->>'status', $4->>'currencyCode', ($4->>'totalAmount')::bigint,
      ($4->>'createdAt')::timestamptz, ($4->>'updatedAt')::timestamptz, ($4->>'attentionAt')::timestamptz,
      ARRAY(SELECT jsonb_array_elements_text($4->'providerIds')), $4)
    ON CONFLICT (model, md5(id)) DO UPDATE SET version = excluded.version, gateway = excluded.gateway, status = excluded.status,
      currency = excluded.currency, total_amount = excluded.total_amount, created_at = excluded.created_at,
      updated_at = excluded.updated_at, attention_at = excluded.attention_at, provider_ids = excluded.provider_ids, facets = excluded.facets
      WHERE p.version <= excluded.version;
$fn$;

-- The commit of migration 4, then each write's facets in the same transaction: a deleted
-- record's go, a write that carries facets replaces them (with the version it stored).
CREATE FUNCTION ${s}.paywire_commit_search(payload jsonb) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  answer text;
  w jsonb;
BEGIN
  answer := ${s}.paywire_commit(payload);
  IF answer <> 'ok' THEN RETURN answer; END IF;
  FOR w IN SELECT value FROM jsonb_array_elements(payload->'writes') LOOP
    IF w->'record' = 'null'::jsonb THEN
      DELETE FROM ${s}.payment_facets WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id';
    ELSIF w ? 'facets' THEN
      PERFORM ${s}.paywire_put_facets(w->>'model', w->>'id', greatest((w->>'expected')::bigint, 0) + 1, w->'facets');
    END IF;
  END LOOP;
  RETURN 'ok';
END
$fn$;`
}
