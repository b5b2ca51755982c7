// CRC-32 (ISO 3309, as PNG and ZIP use it), bit by bit: a check on the writers' own
// table-driven CRC that shares none of their code.
export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}
