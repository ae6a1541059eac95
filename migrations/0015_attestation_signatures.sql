-- A task's attestation is stored as its signature, signer and chain id (src/chain/attestation-record.ts
-- rebuilds the published JSON from them and the task row): 0.2 KB a task instead of 4 KB, the EAS
-- domain and types no longer repeated in every row. Attestations made before keep their full JSON
-- in `attestations`, which nothing writes any more and TaskStore still reads.
CREATE TABLE `task_attestations` (
	`uid` blob PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`signature` blob NOT NULL,
	`signer` blob NOT NULL,
	`chain_id` integer NOT NULL
);
