-- CreateTable
CREATE TABLE "oauth_consents" (
    "nonce" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "oauth_consents_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "oauth_consents_expires_at_idx" ON "oauth_consents"("expires_at");
