-- CreateIndex
CREATE INDEX "reports_organization_id_valid_updated_at_asc_token_idx" ON "reports"("organization_id", "valid", "updated_at", "token");

-- CreateIndex
CREATE INDEX "reports_organization_id_valid_created_at_asc_token_idx" ON "reports"("organization_id", "valid", "created_at", "token");

-- CreateIndex
CREATE INDEX "reports_organization_id_valid_token_idx" ON "reports"("organization_id", "valid", "token");

