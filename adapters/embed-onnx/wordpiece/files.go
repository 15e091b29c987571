package wordpiece

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/foliovec/folio/core"
)

// tokenizerJSON is the part of a fast tokenizer file (tokenizer.json) that
// a BERT WordPiece tokenizer needs.
type tokenizerJSON struct {
	Truncation *struct {
		MaxLength int `json:"max_length"`
	} `json:"truncation"`
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	Model struct {
		Type                    string         `json:"type"`
		UnkToken                string         `json:"unk_token"`
		ContinuingSubwordPrefix *string        `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int            `json:"max_input_chars_per_word"`
		Vocab                   map[string]int `json:"vocab"`
	} `json:"model"`
}

// tokenizerConfig is tokenizer_config.json (the slow tokenizer's settings).
type tokenizerConfig struct {
	DoLowerCase          *bool    `json:"do_lower_case"`
	StripAccents         *bool    `json:"strip_accents"`
	TokenizeChineseChars *bool    `json:"tokenize_chinese_chars"`
	ModelMaxLength       *float64 `json:"model_max_length"`
	CleanUpSpaces        *bool    `json:"clean_up_tokenization_spaces"`
	CLSToken             token    `json:"cls_token"`
	SEPToken             token    `json:"sep_token"`
	UNKToken             token    `json:"unk_token"`
	PADToken             token    `json:"pad_token"`
	MaskToken            token    `json:"mask_token"`
}

// token is a special token in tokenizer_config.json: a string, or an
// object with a content member.
type token string

func (t *token) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*t = token(s)
		return nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	*t = token(obj.Content)
	return nil
}

// modelConfig is the part of config.json the adapter reads.
type modelConfig struct {
	ModelType             string `json:"model_type"`
	HiddenSize            int    `json:"hidden_size"`
	MaxPositionEmbeddings int    `json:"max_position_embeddings"`
	PadTokenID            *int   `json:"pad_token_id"`
}

// readJSON decodes the file name in folder into v; found is false when the
// file does not exist.
func readJSON(fsys fs.FS, folder, name string, v any) (found bool, err error) {
	data, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("wordpiece: read %s: %w", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("wordpiece: parse %s in %s: %w: %w", name, folder, core.ErrCorrupt, err)
	}
	return true, nil
}

// Load reads the tokenizer of the model folder: tokenizer.json when
// present, else vocab.txt with tokenizer_config.json's settings.
func Load(folder string) (*Tokenizer, error) { return LoadFS(os.DirFS(folder), folder) }

// LoadFS reads the tokenizer files at the root of fsys (tokenizer.json,
// vocab.txt, tokenizer_config.json, config.json), as Load reads a folder;
// folder names them in errors.
func LoadFS(fsys fs.FS, folder string) (*Tokenizer, error) {
	var cfg tokenizerConfig
	if _, err := readJSON(fsys, folder, "tokenizer_config.json", &cfg); err != nil {
		return nil, err
	}
	var model modelConfig
	if _, err := readJSON(fsys, folder, "config.json", &model); err != nil {
		return nil, err
	}
	var tj tokenizerJSON
	hasJSON, err := readJSON(fsys, folder, "tokenizer.json", &tj)
	if err != nil {
		return nil, err
	}
	var vocab map[string]int
	if hasJSON {
		vocab = tj.Model.Vocab
		if tj.Model.Type != "WordPiece" && tj.Model.Type != "" {
			return nil, fmt.Errorf("wordpiece: tokenizer.json in %s: model type %q: only BERT WordPiece tokenizers are supported: %w",
				folder, tj.Model.Type, core.ErrInvalidArgument)
		}
	} else {
		data, err := fs.ReadFile(fsys, "vocab.txt")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("wordpiece: model folder %s has neither tokenizer.json nor vocab.txt: %w", folder, fs.ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("wordpiece: read vocab.txt: %w", err)
		}
		vocab = parseVocabTxt(data)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("wordpiece: tokenizer in %s has an empty vocabulary: %w", folder, core.ErrCorrupt)
	}

	t := &Tokenizer{special: map[int]bool{}}
	maxID := 0
	for _, id := range vocab {
		if id < 0 || id > 10_000_000 {
			return nil, fmt.Errorf("wordpiece: tokenizer in %s: token id %d out of range: %w", folder, id, core.ErrCorrupt)
		}
		maxID = max(maxID, id)
	}
	for _, a := range tj.AddedTokens {
		if a.ID >= 0 && a.ID <= 10_000_000 {
			maxID = max(maxID, a.ID)
		}
	}
	t.tokens = make([]string, maxID+1)
	prefix := "##"
	if tj.Model.ContinuingSubwordPrefix != nil {
		prefix = *tj.Model.ContinuingSubwordPrefix
	}
	t.wp = wordPiece{starts: map[string]int{}, continuations: map[string]int{}, maxChars: 100}
	if tj.Model.MaxInputCharsPerWord > 0 {
		t.wp.maxChars = tj.Model.MaxInputCharsPerWord
	}
	for tok, id := range vocab {
		t.tokens[id] = tok
		if rest, ok := strings.CutPrefix(tok, prefix); ok && prefix != "" {
			t.wp.continuations[rest] = id
		} else {
			t.wp.starts[tok] = id
		}
	}
	for _, a := range tj.AddedTokens {
		if a.ID < 0 || a.ID > maxID {
			continue
		}
		if t.tokens[a.ID] == "" {
			t.tokens[a.ID] = a.Content
		}
		if a.Special {
			t.special[a.ID] = true
		}
	}

	// Special tokens: tokenizer_config.json names them, BERT's are the default.
	lookup := func(name token, fallback string) (int, bool) {
		if name == "" {
			name = token(fallback)
		}
		id, ok := vocab[string(name)]
		if ok {
			t.special[id] = true
		}
		return id, ok
	}
	var ok bool
	if t.cls, ok = lookup(cfg.CLSToken, "[CLS]"); !ok {
		return nil, fmt.Errorf("wordpiece: tokenizer in %s has no [CLS] token: %w", folder, core.ErrInvalidArgument)
	}
	if t.sep, ok = lookup(cfg.SEPToken, "[SEP]"); !ok {
		return nil, fmt.Errorf("wordpiece: tokenizer in %s has no [SEP] token: %w", folder, core.ErrInvalidArgument)
	}
	unkName := cfg.UNKToken
	if tj.Model.UnkToken != "" {
		unkName = token(tj.Model.UnkToken)
	}
	if t.wp.unk, ok = lookup(unkName, "[UNK]"); !ok {
		return nil, fmt.Errorf("wordpiece: tokenizer in %s has no [UNK] token: %w", folder, core.ErrInvalidArgument)
	}
	if t.pad, ok = lookup(cfg.PADToken, "[PAD]"); !ok {
		t.pad = 0
		if model.PadTokenID != nil {
			t.pad = *model.PadTokenID
		}
	}
	lookup(cfg.MaskToken, "[MASK]")

	// Normalization: tokenizer.json's BertNormalizer, else the slow
	// tokenizer's settings (uncased by default, as BertTokenizer is).
	lower := cfg.DoLowerCase == nil || *cfg.DoLowerCase
	t.norm = normalizer{cleanText: true, chineseChars: true, lowercase: lower}
	strip := cfg.StripAccents
	if cfg.TokenizeChineseChars != nil {
		t.norm.chineseChars = *cfg.TokenizeChineseChars
	}
	if n := tj.Normalizer; hasJSON && n != nil && n.Type == "BertNormalizer" {
		t.norm = normalizer{
			cleanText:    n.CleanText == nil || *n.CleanText,
			chineseChars: n.HandleChineseChars == nil || *n.HandleChineseChars,
			lowercase:    n.Lowercase == nil || *n.Lowercase,
		}
		strip = n.StripAccents
	} else if hasJSON && n == nil {
		t.norm = normalizer{}
		strip = nil
	}
	// strip_accents unset follows lowercase, as in BERT.
	t.norm.stripAccents = t.norm.lowercase
	if strip != nil {
		t.norm.stripAccents = *strip
	}

	if cfg.CleanUpSpaces == nil || *cfg.CleanUpSpaces {
		t.cleanUp = newCleanUp()
	}

	// Maximum length: model_max_length (ignoring the "unlimited" sentinel
	// 1e30), else tokenizer.json's truncation, never past the position
	// embeddings; 512 when nothing says.
	t.maxLength = 0
	if m := cfg.ModelMaxLength; m != nil && *m >= 2 && *m < math.MaxInt32 {
		t.maxLength = int(*m)
	} else if tj.Truncation != nil && tj.Truncation.MaxLength >= 2 {
		t.maxLength = tj.Truncation.MaxLength
	}
	if p := model.MaxPositionEmbeddings; p >= 2 && (t.maxLength == 0 || t.maxLength > p) {
		t.maxLength = p
	}
	if t.maxLength == 0 {
		t.maxLength = 512
	}
	return t, nil
}

// parseVocabTxt reads vocab.txt: one token per line, the line number is
// the id.
func parseVocabTxt(data []byte) map[string]int {
	vocab := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for id := 0; sc.Scan(); id++ {
		tok := strings.TrimRight(sc.Text(), "\r")
		if _, dup := vocab[tok]; !dup {
			vocab[tok] = id
		}
	}
	return vocab
}
