-- CreateEnum
CREATE TYPE "surface" AS ENUM ('rest', 'mcp');

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "surfaces" "surface"[] DEFAULT ARRAY['rest', 'mcp']::"surface"[];
