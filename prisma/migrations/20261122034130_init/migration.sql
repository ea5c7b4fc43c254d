-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "ReportType" AS ENUM ('inspection', 'counter_inspection', 'after_sale', 'marketing', 'rental', 'insurance', 'remote', 'extra_plate', 'extra_vin', 'extra_scoring');

-- CreateEnum
CREATE TYPE "NotificationChannel" AS ENUM ('email', 'sms');

-- CreateEnum
CREATE TYPE "NotificationStatus" AS ENUM ('pending', 'sent', 'failed');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entities" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "remote_quota" INTEGER NOT NULL DEFAULT 100,
    "remote_quota_used" INTEGER NOT NULL DEFAULT 0,
    "quota_period_start" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "quota_period_months" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dealerships" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "organization_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "address" JSONB,
    "logo" TEXT,
    "illustration_img" TEXT,
    "more_info" TEXT,
    "siret" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,
    "headquarter" BOOLEAN NOT NULL DEFAULT false,
    "brands" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "dealerships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "organization_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "dealership_id" UUID,
    "created_by" TEXT,
    "role" TEXT,
    "photo" TEXT,
    "phone" TEXT,
    "position" TEXT,
    "email" TEXT,
    "last_activity" TIMESTAMPTZ(3),
    "address" JSONB,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contacts" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reports" (
    "token" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "organization_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "dealership_id" UUID,
    "profile_id" UUID,
    "contact_id" UUID,
    "counter_id" UUID,
    "type" "ReportType" NOT NULL,
    "valid" BOOLEAN NOT NULL DEFAULT true,
    "data" JSONB NOT NULL DEFAULT '{}',
    "state" JSONB NOT NULL DEFAULT '{}',
    "real_costs" JSONB,
    "vin" TEXT GENERATED ALWAYS AS (("data" #>> '{vehicle,vin}')) STORED,
    "vin_norm" TEXT GENERATED ALWAYS AS (upper(regexp_replace(("data" #>> '{vehicle,vin}'), '[\s-]+', '', 'g'))) STORED,
    "license_number" TEXT GENERATED ALWAYS AS (("data" #>> '{vehicle,license,number}')) STORED,
    "license_number_norm" TEXT GENERATED ALWAYS AS (upper(regexp_replace(("data" #>> '{vehicle,license,number}'), '[\s-]+', '', 'g'))) STORED,
    "brand" TEXT GENERATED ALWAYS AS (("data" #>> '{vehicle,specifications,brand}')) STORED,
    "model" TEXT GENERATED ALWAYS AS (("data" #>> '{vehicle,specifications,model}')) STORED,
    "brand_norm" TEXT GENERATED ALWAYS AS (lower(("data" #>> '{vehicle,specifications,brand}'))) STORED,
    "version" TEXT GENERATED ALWAYS AS (("data" #>> '{metadata,version}')) STORED,
    "version_norm" TEXT GENERATED ALWAYS AS (lower(("data" #>> '{metadata,version}'))) STORED,
    "folder_name" TEXT GENERATED ALWAYS AS (("data" #>> '{metadata,name}')) STORED,
    "client_name" TEXT GENERATED ALWAYS AS (("data" #>> '{metadata,individual,name}')) STORED,
    "client_email" TEXT GENERATED ALWAYS AS (("data" #>> '{metadata,individual,email}')) STORED,
    "client_phone" TEXT GENERATED ALWAYS AS (("data" #>> '{metadata,individual,phone}')) STORED,
    "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce(("data" #>> '{vehicle,vin}'), '') || E'\n' || coalesce(("data" #>> '{vehicle,license,number}'), '') || E'\n' || coalesce(("data" #>> '{vehicle,specifications,brand}'), '') || E'\n' || coalesce(("data" #>> '{vehicle,specifications,model}'), '') || E'\n' || coalesce(("data" #>> '{metadata,individual,name}'), '') || E'\n' || coalesce(("data" #>> '{metadata,individual,email}'), '') || E'\n' || coalesce(("data" #>> '{metadata,individual,phone}'), '') || E'\n' || coalesce(("data" #>> '{metadata,name}'), '') || E'\n' || coalesce(upper(regexp_replace(("data" #>> '{vehicle,license,number}'), '[\s-]+', '', 'g')), '') || E'\n' || coalesce(upper(regexp_replace(("data" #>> '{vehicle,vin}'), '[\s-]+', '', 'g')), ''))) STORED,

    CONSTRAINT "reports_pkey" PRIMARY KEY ("token")
);

-- CreateTable
CREATE TABLE "notification_outbox" (
    "id" UUID NOT NULL,
    "report_token" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "channel" "NotificationChannel" NOT NULL,
    "recipient" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "NotificationStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_attempts" (
    "id" UUID NOT NULL,
    "outbox_id" UUID NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "succeeded" BOOLEAN NOT NULL,
    "error" TEXT,

    CONSTRAINT "notification_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "organization_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status_code" INTEGER NOT NULL,
    "response_body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("organization_id","key")
);

-- CreateIndex
CREATE INDEX "entities_organization_id_idx" ON "entities"("organization_id");

-- CreateIndex
CREATE INDEX "dealerships_organization_id_position_name_idx" ON "dealerships"("organization_id", "position", "name");

-- CreateIndex
CREATE INDEX "dealerships_entity_id_idx" ON "dealerships"("entity_id");

-- CreateIndex
CREATE INDEX "users_organization_id_created_at_id_idx" ON "users"("organization_id", "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "users_dealership_id_idx" ON "users"("dealership_id");

-- CreateIndex
CREATE INDEX "users_entity_id_idx" ON "users"("entity_id");

-- CreateIndex
CREATE INDEX "contacts_organization_id_idx" ON "contacts"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_digest_key" ON "api_keys"("digest");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_idx" ON "api_keys"("organization_id");

-- CreateIndex
CREATE INDEX "reports_organization_id_valid_created_at_token_idx" ON "reports"("organization_id", "valid", "created_at" DESC, "token");

-- CreateIndex
CREATE INDEX "reports_organization_id_valid_updated_at_token_idx" ON "reports"("organization_id", "valid", "updated_at" DESC, "token");

-- CreateIndex
CREATE INDEX "reports_organization_id_brand_norm_idx" ON "reports"("organization_id", "brand_norm");

-- CreateIndex
CREATE INDEX "reports_organization_id_version_norm_idx" ON "reports"("organization_id", "version_norm");

-- CreateIndex
CREATE INDEX "reports_organization_id_vin_norm_idx" ON "reports"("organization_id", "vin_norm");

-- CreateIndex
CREATE INDEX "reports_organization_id_license_number_norm_idx" ON "reports"("organization_id", "license_number_norm");

-- CreateIndex
CREATE INDEX "reports_dealership_id_created_at_token_idx" ON "reports"("dealership_id", "created_at" DESC, "token");

-- CreateIndex
CREATE INDEX "reports_profile_id_created_at_token_idx" ON "reports"("profile_id", "created_at" DESC, "token");

-- CreateIndex
CREATE INDEX "reports_entity_id_idx" ON "reports"("entity_id");

-- CreateIndex
CREATE INDEX "reports_contact_id_idx" ON "reports"("contact_id");

-- CreateIndex
CREATE INDEX "reports_counter_id_idx" ON "reports"("counter_id");

-- CreateIndex
CREATE INDEX "reports_data_idx" ON "reports" USING GIN ("data" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "reports_state_idx" ON "reports" USING GIN ("state" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "reports_search_text_idx" ON "reports" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "notification_outbox_status_next_attempt_at_idx" ON "notification_outbox"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "notification_outbox_report_token_idx" ON "notification_outbox"("report_token");

-- CreateIndex
CREATE INDEX "notification_attempts_outbox_id_idx" ON "notification_attempts"("outbox_id");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "entities" ADD CONSTRAINT "entities_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dealerships" ADD CONSTRAINT "dealerships_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dealerships" ADD CONSTRAINT "dealerships_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_dealership_id_fkey" FOREIGN KEY ("dealership_id") REFERENCES "dealerships"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_dealership_id_fkey" FOREIGN KEY ("dealership_id") REFERENCES "dealerships"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_profile_id_fkey" FOREIGN KEY ("profile_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_counter_id_fkey" FOREIGN KEY ("counter_id") REFERENCES "reports"("token") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_outbox" ADD CONSTRAINT "notification_outbox_report_token_fkey" FOREIGN KEY ("report_token") REFERENCES "reports"("token") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_attempts" ADD CONSTRAINT "notification_attempts_outbox_id_fkey" FOREIGN KEY ("outbox_id") REFERENCES "notification_outbox"("id") ON DELETE CASCADE ON UPDATE CASCADE;

