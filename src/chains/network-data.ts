/**
 * A family's own fields of one outbound transaction (EVM: gasLimit, maxFeePerGas,
 * maxPriorityFeePerGas; Tron: feeLimit, the built transaction; Solana: compute units, the
 * compiled message), opaque above the seam and JSON-safe: the pipeline stores them as
 * outbound_txs.network_data and hands them back. Integers are decimal strings.
 */
export type NetworkData = Readonly<Record<string, string>>;
