package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The demo (make demo's commands, read from the Makefile) and the README's
// quick start (its three commands, read from the README) are run as
// written, from the repository's root, and their first answers are right:
// the demo's first question ranks README.md, whose second line answers it,
// first, and shows that line; the quick start's question shows the
// section on several processes sharing a folder first, from its heading.
func TestDemoAndQuickStartFindTheirAnswers(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("demo", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "demo-index")
		lines := recipe(t, filepath.Join(root, "Makefile"), "demo:")
		var queries int
		for _, line := range lines {
			if !strings.HasPrefix(line, "bin/folio ") {
				continue
			}
			args := shellWords(t, strings.ReplaceAll(strings.TrimPrefix(line, "bin/folio "), "$(DEMO_INDEX)", index))
			if args[0] != "query" {
				must(t, root, 0, args...)
				continue
			}
			queries++
			q := decode[queryOutput](t, must(t, root, 0, append(args, "--json")...))
			if queries == 1 {
				first := firstSection(t, q)
				if filepath.Base(q.Results[0].URI) != "README.md" || !strings.Contains(first, "with the race detector") {
					t.Errorf("demo's first question %q: first %s, showing\n%s\nwant README.md showing its line on the race detector", q.Query, q.Results[0].URI, first)
				}
			}
		}
		if queries != 2 {
			t.Errorf("the demo asks %d questions, want 2", queries)
		}
	})
	t.Run("quick start", func(t *testing.T) {
		index := filepath.Join(t.TempDir(), "my-index")
		var asked bool
		for _, line := range quickStart(t, filepath.Join(root, "README.md")) {
			args := shellWords(t, strings.ReplaceAll(strings.TrimPrefix(line, "folio "), "my-index", index))
			if args[0] != "query" {
				// A newcomer's first add reads every file it is given.
				if r := must(t, root, 0, args...); strings.Contains(r.stdout+r.stderr, "skipped") {
					t.Errorf("folio %s skips files:\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
				}
				continue
			}
			asked = true
			q := decode[queryOutput](t, must(t, root, 0, append(args, "--json")...))
			first := firstSection(t, q)
			heading, _, _ := strings.Cut(first, "\n")
			if strings.TrimLeft(heading, "# ") != "Several processes on one folder" || !strings.HasPrefix(heading, "#") {
				t.Errorf("quick start's question %q: first %s, showing\n%s\nwant the section on several processes, from its heading", q.Query, q.Results[0].URI, first)
			}
		}
		if !asked {
			t.Fatal("the README's quick start asks no question")
		}
	})
}

func firstSection(t *testing.T, q queryOutput) string {
	t.Helper()
	if len(q.Results) == 0 || len(q.Results[0].Sections) == 0 {
		t.Fatalf("query %q: no section shown: %+v", q.Query, q)
	}
	return q.Results[0].Sections[0].Text
}

// recipe returns the command lines of a Makefile's target, without their
// tab and @.
func recipe(t *testing.T, makefile, target string) []string {
	t.Helper()
	f, err := os.Open(makefile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, target):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(line, "\t"), "@"))
		case in:
			return lines
		}
	}
	if !in {
		t.Fatalf("%s has no target %s", makefile, target)
	}
	return lines
}

// quickStart returns the folio command lines of the README's first sh block
// that creates my-index.
func quickStart(t *testing.T, readme string) []string {
	t.Helper()
	raw, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(raw), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.Contains(block, "folio create my-index") {
			continue
		}
		var lines []string
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "folio ") {
				lines = append(lines, line)
			}
		}
		return lines
	}
	t.Fatal("the README has no quick start (an sh block with folio create my-index)")
	return nil
}

// shellWords splits a command line as sh does for the quoting the demo and
// the README use: words apart at spaces, '…' and "…" quoted.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	quote, inWord := rune(0), false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
