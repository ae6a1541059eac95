-- A proof by CID (GET /api/v1/public/proof/:cid) finds its task from the document itself, which
-- names it (src/proofs/documents.ts): the two indexes on the tasks' CIDs, random keys written with
-- every task, are gone (docs/performance.md, Checkpoints).
DROP INDEX `tasks_ipfs_cid_idx`;--> statement-breakpoint
DROP INDEX `tasks_receipt_cid_idx`;
