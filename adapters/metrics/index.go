package metrics

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// Index is one index a collector reports, under its name.
type Index struct {
	Name  string
	Index *core.LocalIndex
	// Documents is the document index over Index; nil for an item index.
	Documents *core.LocalDocumentIndex
	// Dir, when set, is the index's folder on the local file system: the
	// collector reports the bytes of the files in it (walked at most once
	// a minute, as a folder of many documents takes a while).
	Dir string
}

// ManagerIndexes lists the indexes a manager serves now, for
// NewIndexCollector: what `folio serve` and the gRPC server answer from.
// onDisk says the manager's storage is the local file system, whose
// folders are then the indexes' Dir.
func ManagerIndexes(m *manager.Manager, onDisk bool) func() []Index {
	return func() []Index {
		var out []Index
		for _, mi := range m.ListIndexes() {
			ix := Index{Name: mi.Name, Index: mi.Index, Documents: mi.Documents}
			if onDisk {
				ix.Dir = mi.Folder
			}
			out = append(out, ix)
		}
		return out
	}
}

// statsTimeout bounds reading one index's stats during a scrape (an index
// not loaded yet is loaded by it).
const statsTimeout = 5 * time.Second

var (
	indexLabel = []string{"index"}

	descQueries          = perIndex("folio_index_queries_total", "Queries the index answered or refused (each query of a batch counts).")
	descQueryErrors      = perIndex("folio_index_query_errors_total", "Queries that failed.")
	descQuerySeconds     = perIndex("folio_index_query_seconds_total", "Time spent answering queries, in seconds (a batch counts once).")
	descCommits          = perIndex("folio_index_commits_total", "Batches of writes committed to storage.")
	descCommitErrors     = perIndex("folio_index_commit_errors_total", "Commits that failed.")
	descCommitSeconds    = perIndex("folio_index_commit_seconds_total", "Time spent committing, in seconds.")
	descCompactions      = perIndex("folio_index_compactions_total", "Rewrites of a segmented index's segments that did something (compactions and merges).")
	descCompactionErrors = perIndex("folio_index_compaction_errors_total", "Compactions and merges that failed.")
	descCompactionSecs   = perIndex("folio_index_compaction_seconds_total", "Time spent compacting and merging, in seconds, checks that found nothing to do included.")
	descMerges           = perIndex("folio_index_commit_merges_total", "Commits that merged small segments into the one they wrote.")
	descScans            = prometheus.NewDesc("folio_index_scans_total", "Queries scored, by how: exact (every vector), filtered (the rows a filter selected), codes (the compact codes, then an exact re-rank).", []string{"index", "kind"}, nil)
	descProbedScans      = perIndex("folio_index_probed_scans_total", "Code scans that read only the partitions nearest their query (--partitions).")
	descPartitions       = perIndex("folio_index_partitions", "Partitions the rows are grouped in (--partitions; 0 when they are not).")
	descProbes           = perIndex("folio_index_partition_probes", "Partitions a query reads on average, as the calibration measured (equal to the partitions when they do not pay).")
	descExpectedRecall   = perIndex("folio_index_expected_recall", "Share of the top 10 of a scan of every row that the probed partitions held for the calibration's queries.")
	descKeywordQueries   = perIndex("folio_index_keyword_queries_total", "Queries that also ranked BM25 keyword hits.")
	descReloads          = perIndex("folio_index_reloads_total", "Loads of what another process committed to the index's folder.")
	descItems            = perIndex("folio_index_items", "Items in the index (chunks, in a document index).")
	descDocuments        = perIndex("folio_index_documents", "Documents in a document index.")
	descSegments         = perIndex("folio_index_segments", "Segment files of a segmented index (0 for Vectra's index file).")
	descTombstones       = perIndex("folio_index_tombstones", "Stored rows of deleted or replaced items that a compaction would remove.")
	descOutliers         = perIndex("folio_index_outlier_rows", "Rows scored exactly by every query because their 4-bit codes cannot hold them.")
	descCodeBytes        = perIndex("folio_index_code_bytes", "Memory the index's scan codes take, in the heap or mapped from segment files, in bytes.")
	descDiskBytes        = perIndex("folio_index_disk_bytes", "Bytes of the files in the index's folder on disk.")
)

// diskEvery is how long a folder's size is reported before it is walked
// again.
const diskEvery = time.Minute

// perIndex describes a metric of each index, labelled by its name.
func perIndex(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, indexLabel, nil)
}

// indexCollector reports the indexes list gives at each scrape.
type indexCollector struct {
	list        func() []Index
	statsErrors *prometheus.CounterVec

	mu   sync.Mutex
	disk map[string]diskSize // by Dir
}

// diskSize is a folder's size when it was last walked.
type diskSize struct {
	bytes int64
	at    time.Time
}

// NewIndexCollector returns a collector of every index list returns at
// each scrape, labelled by name: its counters (IndexMetrics: queries and
// how they were scored, code scans that probed partitions, commits, compactions with their errors and seconds,
// merges, reloads) and its
// gauges (items, documents, segments, tombstones, outlier rows, code
// bytes, partitions, probes and expected recall; from GetIndexStats and GetCatalogStats, read with a 5 s bound;
// and the bytes on disk of an index with a Dir).
func NewIndexCollector(list func() []Index) prometheus.Collector {
	return &indexCollector{list: list, statsErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_index_stats_errors_total", Help: "Scrapes that could not read an index's stats (its gauges are left out).",
	}, indexLabel), disk: map[string]diskSize{}}
}

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueries, descQueryErrors, descQuerySeconds, descCommits, descCommitErrors,
		descCommitSeconds, descCompactions, descCompactionErrors, descCompactionSecs, descMerges, descReloads, descScans, descProbedScans, descKeywordQueries, descItems,
		descDocuments, descSegments, descTombstones, descOutliers, descCodeBytes, descDiskBytes, descPartitions, descProbes, descExpectedRecall} {
		ch <- d
	}
	c.statsErrors.Describe(ch)
}

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	listed := c.list()
	defer c.forgetOthers(listed)
	for _, ix := range listed {
		if ix.Index == nil {
			continue
		}
		m := ix.Index.Metrics()
		count := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, ix.Name)
		}
		count(descQueries, float64(m.Queries))
		count(descQueryErrors, float64(m.QueryErrors))
		count(descQuerySeconds, m.QueryTime.Seconds())
		count(descCommits, float64(m.Commits))
		count(descCommitErrors, float64(m.CommitErrors))
		count(descCommitSeconds, m.CommitTime.Seconds())
		count(descCompactions, float64(m.Compactions))
		count(descCompactionErrors, float64(m.CompactionErrors))
		count(descCompactionSecs, m.CompactionTime.Seconds())
		count(descMerges, float64(m.Merges))
		count(descReloads, float64(m.Reloads))
		count(descKeywordQueries, float64(m.KeywordQueries))
		count(descProbedScans, float64(m.ProbedScans))
		for kind, n := range map[string]uint64{"exact": m.ExactScans, "filtered": m.FilteredScans, "codes": m.CodeScans} {
			ch <- prometheus.MustNewConstMetric(descScans, prometheus.CounterValue, float64(n), ix.Name, kind)
		}
		c.gauges(ch, ix)
	}
	c.statsErrors.Collect(ch)
}

// gauges reports what the index holds now.
func (c *indexCollector) gauges(ch chan<- prometheus.Metric, ix Index) {
	ctx, cancel := context.WithTimeout(context.Background(), statsTimeout)
	defer cancel()
	st, err := ix.Index.GetIndexStats(ctx)
	if err != nil {
		c.statsErrors.WithLabelValues(ix.Name).Inc()
		return
	}
	set := func(d *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), ix.Name)
	}
	set(descItems, st.Items)
	set(descSegments, st.Storage.Segments)
	set(descTombstones, st.Storage.Tombstones)
	set(descOutliers, st.Outliers)
	ch <- prometheus.MustNewConstMetric(descCodeBytes, prometheus.GaugeValue, float64(st.CodeBytes), ix.Name)
	set(descPartitions, st.Partitions)
	ch <- prometheus.MustNewConstMetric(descProbes, prometheus.GaugeValue, st.Probes, ix.Name)
	ch <- prometheus.MustNewConstMetric(descExpectedRecall, prometheus.GaugeValue, st.ExpectedRecall, ix.Name)
	if ix.Dir != "" {
		if b, err := c.diskBytes(ix.Dir); err == nil {
			ch <- prometheus.MustNewConstMetric(descDiskBytes, prometheus.GaugeValue, float64(b), ix.Name)
		} else {
			c.statsErrors.WithLabelValues(ix.Name).Inc()
		}
	}
	if ix.Documents != nil {
		if cs, err := ix.Documents.GetCatalogStats(ctx); err == nil {
			set(descDocuments, cs.Documents)
		} else {
			c.statsErrors.WithLabelValues(ix.Name).Inc()
		}
	}
}

// diskBytes is the size of the files below dir, walked again when the last
// walk is older than diskEvery.
func (c *indexCollector) diskBytes(dir string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.disk[dir]; ok && time.Since(d.at) < diskEvery {
		return d.bytes, nil
	}
	var total int64
	err := filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			info, err := e.Info()
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil // replaced by a commit meanwhile
			case err != nil:
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	c.disk[dir] = diskSize{bytes: total, at: time.Now()}
	return total, nil
}

// forgetOthers drops the sizes of folders no index listed has.
func (c *indexCollector) forgetOthers(listed []Index) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for dir := range c.disk {
		if !slices.ContainsFunc(listed, func(ix Index) bool { return ix.Dir == dir }) {
			delete(c.disk, dir)
		}
	}
}
