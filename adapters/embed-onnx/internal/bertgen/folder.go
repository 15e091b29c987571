package bertgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Folder says how WriteFolder lays out a model folder.
type Folder struct {
	// ModelFile is the ONNX file's path inside the folder; "" means
	// onnx/model.onnx (the transformers.js layout).
	ModelFile string
	// Model varies the exported graph.
	Model ModelOptions
	// Vocab is the WordPiece vocabulary, one token per id.
	Vocab []string
	// TokenizerJSON writes tokenizer.json (the fast tokenizer file);
	// VocabTxt writes vocab.txt. Both may be set.
	TokenizerJSON, VocabTxt bool
	// Uncased lower-cases and strips accents (bert-base-uncased style).
	Uncased bool
	// MaxLength is model_max_length in tokenizer_config.json; 0 writes no
	// tokenizer_config.json.
	MaxLength int
	// NoConfig leaves config.json out.
	NoConfig bool
}

// WriteFolder writes a Hugging Face style model folder for w into dir.
func WriteFolder(dir string, w *Weights, f Folder) error {
	if f.ModelFile == "" {
		f.ModelFile = "onnx/model.onnx"
	}
	write := func(name string, data []byte) error {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	}
	if err := write(f.ModelFile, w.Model(f.Model)); err != nil {
		return fmt.Errorf("bertgen: write model: %w", err)
	}
	if f.VocabTxt {
		if err := write("vocab.txt", []byte(strings.Join(f.Vocab, "\n")+"\n")); err != nil {
			return fmt.Errorf("bertgen: write vocab: %w", err)
		}
	}
	if f.TokenizerJSON {
		data, err := json.MarshalIndent(tokenizerJSON(f.Vocab, f.Uncased), "", " ")
		if err == nil {
			err = write("tokenizer.json", data)
		}
		if err != nil {
			return fmt.Errorf("bertgen: write tokenizer.json: %w", err)
		}
	}
	if f.MaxLength > 0 {
		data, _ := json.Marshal(map[string]any{
			"do_lower_case": f.Uncased, "model_max_length": f.MaxLength, "strip_accents": nil,
			"tokenize_chinese_chars": true, "cls_token": "[CLS]", "sep_token": "[SEP]",
			"unk_token": "[UNK]", "pad_token": "[PAD]", "mask_token": "[MASK]",
			"tokenizer_class": "BertTokenizer",
		})
		if err := write("tokenizer_config.json", data); err != nil {
			return fmt.Errorf("bertgen: write tokenizer_config.json: %w", err)
		}
	}
	if !f.NoConfig {
		data, _ := json.Marshal(map[string]any{
			"model_type": "bert", "architectures": []string{"BertModel"},
			"vocab_size": w.VocabSize, "hidden_size": w.Hidden, "num_hidden_layers": w.Config.Layers,
			"num_attention_heads": w.Heads, "intermediate_size": w.Intermediate,
			"max_position_embeddings": w.MaxPositions, "type_vocab_size": w.TypeVocab,
			"layer_norm_eps": w.LayerNormEps, "hidden_act": "gelu", "pad_token_id": 0,
		})
		if err := write("config.json", data); err != nil {
			return fmt.Errorf("bertgen: write config.json: %w", err)
		}
	}
	return nil
}

// tokenizerJSON is the fast-tokenizer file of a BERT WordPiece tokenizer.
func tokenizerJSON(vocab []string, uncased bool) map[string]any {
	ids := make(map[string]int, len(vocab))
	var added []map[string]any
	for id, tok := range vocab {
		ids[tok] = id
		if strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]") && len(tok) > 2 {
			added = append(added, map[string]any{
				"id": id, "content": tok, "single_word": false, "lstrip": false,
				"rstrip": false, "normalized": false, "special": true,
			})
		}
	}
	special := func(tok string) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": tok, "type_id": 0}}
	}
	return map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": uncased,
		},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{special("[CLS]"), map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, special("[SEP]")},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{ids["[CLS]"]}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{ids["[SEP]"]}, "tokens": []string{"[SEP]"}},
			},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids,
		},
	}
}

// TinyVocab is a small WordPiece vocabulary: special tokens, letters and
// their continuations, digits, punctuation, a few words and CJK characters.
func TinyVocab() []string {
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for c := 'a'; c <= 'z'; c++ {
		vocab = append(vocab, string(c), "##"+string(c))
	}
	for c := '0'; c <= '9'; c++ {
		vocab = append(vocab, string(c), "##"+string(c))
	}
	for _, p := range ".,!?'\"-()[]:;/" {
		vocab = append(vocab, string(p))
	}
	vocab = append(vocab,
		"the", "hello", "world", "cafe", "caf", "##s", "##ing", "##ed", "un", "##aff", "##able",
		"quick", "brown", "fox", "jump", "lazy", "dog", "naive", "resume", "vector", "index",
		"中", "文", "日", "本", "é", "ß", "Hello", "##é",
	)
	return vocab
}
