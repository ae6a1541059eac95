ALTER TABLE "provider_keys" ADD COLUMN "position" bigint DEFAULT 0 NOT NULL;
