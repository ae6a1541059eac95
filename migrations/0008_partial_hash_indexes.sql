DROP INDEX `tasks_ipfs_cid_idx`;--> statement-breakpoint
DROP INDEX `tasks_receipt_cid_idx`;--> statement-breakpoint
DROP INDEX `tasks_verification_proof_idx`;--> statement-breakpoint
CREATE INDEX `tasks_ipfs_cid_idx` ON `tasks` (`ipfs_cid`) WHERE ipfs_cid IS NOT NULL;--> statement-breakpoint
CREATE INDEX `tasks_receipt_cid_idx` ON `tasks` (`receipt_cid`) WHERE receipt_cid IS NOT NULL;--> statement-breakpoint
CREATE INDEX `tasks_verification_proof_idx` ON `tasks` (`verification_proof`) WHERE verification_proof IS NOT NULL;