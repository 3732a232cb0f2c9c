#include "kopt/profile/csv_record.hpp"

#include <gtest/gtest.h>

namespace kopt::profile {
namespace {

using Fields = std::vector<std::string>;

TEST(NcuCsvRecord, SplitsQuotedFieldsHoldingCommasAndDoubledQuotes) {
  EXPECT_EQ(split_csv_record(R"("a","25,728,192","say ""hi""")"), (Fields{"a", "25,728,192", R"(say "hi")"}));
}

TEST(NcuCsvRecord, KeepsEmptyFieldsQuotedOrNot) {
  EXPECT_EQ(split_csv_record(R"("",,"x",)"), (Fields{"", "", "x", ""}));
  EXPECT_EQ(split_csv_record(""), (Fields{""}));
}

TEST(NcuCsvRecord, ReadsUnquotedFieldsAndDropsACarriageReturn) {
  EXPECT_EQ(split_csv_record("1,two,3.5\r"), (Fields{"1", "two", "3.5"}));
}

TEST(NcuCsvRecord, RejectsAnUnterminatedQuote) {
  EXPECT_FALSE(split_csv_record(R"("a","b)"));
}

TEST(NcuCsvRecord, RejectsTextAfterAClosingQuote) {
  EXPECT_FALSE(split_csv_record(R"("a"b,"c")"));
}

TEST(NcuCsvRecord, RejectsAQuoteInsideAnUnquotedField) {
  EXPECT_FALSE(split_csv_record(R"(say "hi")"));
}

}  // namespace
}  // namespace kopt::profile
