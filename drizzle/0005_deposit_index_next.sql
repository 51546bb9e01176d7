CREATE TABLE "deposit_index_next" (
	"index_space" text NOT NULL,
	"is_test" boolean NOT NULL,
	"next_index" bigint NOT NULL,
	CONSTRAINT "deposit_index_next_index_space_is_test_pk" PRIMARY KEY("index_space","is_test")
);
--> statement-breakpoint
-- Each counter continues where its sequence stopped, so no index is ever handed out twice.
INSERT INTO "deposit_index_next" ("index_space", "is_test", "next_index")
SELECT 'evm', true, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_evm_test"
UNION ALL SELECT 'evm', false, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_evm_live"
UNION ALL SELECT 'bitcoin', true, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_bitcoin_test"
UNION ALL SELECT 'bitcoin', false, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_bitcoin_live"
UNION ALL SELECT 'litecoin', true, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_litecoin_test"
UNION ALL SELECT 'litecoin', false, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_litecoin_live"
UNION ALL SELECT 'solana', true, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_solana_test"
UNION ALL SELECT 'solana', false, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_solana_live"
UNION ALL SELECT 'tron', true, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_tron_test"
UNION ALL SELECT 'tron', false, CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM "public"."deposit_index_tron_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_bitcoin_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_bitcoin_test";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_evm_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_evm_test";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_litecoin_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_litecoin_test";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_solana_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_solana_test";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_tron_live";--> statement-breakpoint
DROP SEQUENCE "public"."deposit_index_tron_test";