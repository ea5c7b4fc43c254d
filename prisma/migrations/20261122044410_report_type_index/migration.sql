-- CreateIndex
CREATE INDEX "reports_organization_id_type_valid_created_at_token_idx" ON "reports"("organization_id", "type", "valid", "created_at" DESC, "token");

