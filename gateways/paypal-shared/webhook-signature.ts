/*
 * PayPal's CRC32 webhook signature method (the message both sides sign and verify), shared
 * by the gateway's offline verifier and the simulator that signs its deliveries.
 */

// zlib.crc32 only exists from Node 20.15 while the project supports every Node 20.
const CRC32_TABLE = Int32Array.from({ length: 256 }, (_, index) => {
  let value = index
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1
  return value
})

/** CRC-32/IEEE as an unsigned integer, the form PayPal's signature message uses. */
export function crc32 (data: string | Buffer): number {
  let crc = -1
  for (const byte of typeof data === 'string' ? Buffer.from(data, 'utf8') : data) {
    crc = (crc >>> 8) ^ (CRC32_TABLE[(crc ^ byte) & 0xff] as number)
  }
  return (crc ^ -1) >>> 0
}

/** `transmissionId|transmissionTime|webhookId|crc32(body)`, the message PayPal signs. */
export function signedMessage (transmissionId: string, transmissionTime: string, webhookId: string, body: string): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body)}`
}
