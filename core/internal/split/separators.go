package split

// SeparatorsFor returns the separators of a document type, in priority order,
// exactly as Vectra 0.15 lists them, duplicates included. Matching
// is exact and case-sensitive; any other type, "" included, gets the
// default list: a blank line, then a line break.
func SeparatorsFor(docType string) []string {
	switch docType {
	case "cpp":
		return []string{"\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\n\n", "\n"}
	case "go":
		return []string{"\nfunc ", "\nvar ", "\nconst ", "\ntype ", "\nif ", "\nfor ", "\nswitch ", "\ncase ", "\n\n", "\n"}
	case "java", "c#", "csharp", "cs", "ts", "tsx", "typescript":
		return []string{"// LLM-REGION", "/* LLM-REGION", "/** LLM-REGION", "\nclass ", "\npublic ", "\nprotected ", "\nprivate ", "\nstatic ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\n\n", "\n", " "}
	case "js", "jsx", "javascript":
		return []string{"// LLM-REGION", "/* LLM-REGION", "/** LLM-REGION", "\nclass ", "\nfunction ", "\nconst ", "\nlet ", "\nvar ", "\nclass ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ", "\n\n", "\n"}
	case "php":
		return []string{"\nfunction ", "\nclass ", "\nif ", "\nforeach ", "\nwhile ", "\ndo ", "\nswitch ", "\ncase ", "\n\n", "\n"}
	case "proto":
		return []string{"\nmessage ", "\nservice ", "\nenum ", "\noption ", "\nimport ", "\nsyntax ", "\n\n", "\n"}
	case "python", "py":
		return []string{"\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n"}
	case "rst":
		return []string{"\n===\n", "\n---\n", "\n***\n", "\n.. ", "\n\n", "\n"}
	case "ruby":
		return []string{"\ndef ", "\nclass ", "\nif ", "\nunless ", "\nwhile ", "\nfor ", "\ndo ", "\nbegin ", "\nrescue ", "\n\n", "\n"}
	case "rust":
		return []string{"\nfn ", "\nconst ", "\nlet ", "\nif ", "\nwhile ", "\nfor ", "\nloop ", "\nmatch ", "\nconst ", "\n\n", "\n"}
	case "scala":
		return []string{"\nclass ", "\nobject ", "\ndef ", "\nval ", "\nvar ", "\nif ", "\nfor ", "\nwhile ", "\nmatch ", "\ncase ", "\n\n", "\n"}
	case "swift":
		return []string{"\nfunc ", "\nclass ", "\nstruct ", "\nenum ", "\nif ", "\nfor ", "\nwhile ", "\ndo ", "\nswitch ", "\ncase ", "\n\n", "\n"}
	case "md", "markdown":
		return []string{"\n## ", "\n### ", "\n#### ", "\n##### ", "\n###### ", "```\n\n", "\n\n***\n\n", "\n\n---\n\n", "\n\n___\n\n", "<table>", "\n\n", "\n"}
	case "latex":
		return []string{"\n\\chapter{", "\n\\section{", "\n\\subsection{", "\n\\subsubsection{", "\n\\begin{enumerate}", "\n\\begin{itemize}", "\n\\begin{description}", "\n\\begin{list}", "\n\\begin{quote}", "\n\\begin{quotation}", "\n\\begin{verse}", "\n\\begin{verbatim}", "\n\\begin{align}", "\n\n", "\n"}
	case "html":
		return []string{"<body>", "<div>", "<p>", "<br>", "<li>", "<h1>", "<h2>", "<h3>", "<h4>", "<h5>", "<h6>", "<span>", "<table>", "<tr>", "<td>", "<th>", "<ul>", "<ol>", "<header>", "<footer>", "<nav>", "<head>", "<style>", "<script>", "<meta>", "<title>"}
	case "sol":
		return []string{"\npragma ", "\nusing ", "\ncontract ", "\ninterface ", "\nlibrary ", "\nconstructor ", "\ntype ", "\nfunction ", "\nevent ", "\nmodifier ", "\nerror ", "\nstruct ", "\nenum ", "\nif ", "\nfor ", "\nwhile ", "\ndo while ", "\nassembly ", "\n\n", "\n"}
	default:
		return []string{"\n\n", "\n"}
	}
}
