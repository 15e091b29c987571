package fetch

import (
	"context"
	"fmt"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/PuerkitoBio/goquery"

	"github.com/foliovec/folio/core/jsvalue"
)

// leadingRunLimit is Vectra's limit on the markdown's leading run of text
// without a space or line break, in UTF-16 code units: a longer run is
// dropped.
const leadingRunLimit = 64

// htmlToMarkdown converts an HTML page to markdown: <script> and <style>
// dropped, the <body> converted with links and images made absolute against
// pageURL, GFM tables, "---" rules, then, when trim is set, Vectra's
// leading-run rule.
func htmlToMarkdown(ctx context.Context, page, pageURL string, trim bool) (string, error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		return "", fmt.Errorf("parse html: %w", err)
	}
	doc.Find("script, style").Remove()
	body := doc.Find("body")
	if body.Length() == 0 {
		return "", nil
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(commonmark.WithHorizontalRule("---"), commonmark.WithListEndComment(false)),
		table.NewTablePlugin(table.WithHeaderPromotion(true), table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
	))
	md, err := conv.ConvertNode(body.Get(0), converter.WithContext(ctx), converter.WithDomain(pageURL))
	if err != nil {
		return "", fmt.Errorf("convert html: %w", err)
	}
	if !trim {
		return string(md), nil
	}
	return dropLeadingRun(string(md)), nil
}

// dropLeadingRun applies Vectra's rule: when the first space or line break
// of md comes after its 64th UTF-16 code unit, everything before it is
// dropped.
func dropLeadingRun(md string) string {
	i := strings.IndexAny(md, " \n")
	if i < 0 || jsvalue.UTF16Len(md[:i]) <= leadingRunLimit {
		return md
	}
	return md[i:]
}
