-- CreateTable
CREATE TABLE "report_answers" (
    "token" UUID NOT NULL,
    "row_version" BIGINT NOT NULL,
    "shape" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "built_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "report_answers_pkey" PRIMARY KEY ("token")
);

-- AddForeignKey
ALTER TABLE "report_answers" ADD CONSTRAINT "report_answers_token_fkey" FOREIGN KEY ("token") REFERENCES "reports"("token") ON DELETE CASCADE ON UPDATE CASCADE;

