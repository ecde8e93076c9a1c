// Package puppet turns Puppet code into graph documents for incremental
// migration from Puppet: `puppet-graph site.pp | graph-merge - m.json |
// mgmt-apply`.
//
// The pipeline has three stages, each usable alone:
//
//  1. Compile: a manifest becomes a catalog (package catalog), either with
//     the installed Puppet (`puppet catalog compile --render-as json`) or
//     with the native engine (packages syntax and eval), which evaluates
//     the common Puppet language the same way and is much faster. Catalogs
//     from elsewhere (PuppetDB, a Puppet server) are decoded directly.
//  2. Relationship graph (BuildRelGraph): what Puppet's
//     RelationshipGraph#populate_from does, replicated from the catalog:
//     manual edges from before/require/notify/subscribe (notify and
//     subscribe carry refresh events), the automatic requirements (a file
//     requires its nearest managed ancestor directory, its owner, group and
//     link target; an exec its cwd, user and fully qualified command), and
//     every container (stage, class, node, defined-type instance) replaced
//     by an admissible_/completed_ whit pair: admissible_X precedes X's
//     contents, which precede completed_X; edges to X go to admissible_X,
//     edges from X leave from completed_X.
//  3. Translate: every vertex becomes a resource of our kinds (file, exec,
//     pkg, svc, user, group, msg, mount; whits, anchors and concat
//     fragments become noop) through a table of mappings (mapping.go:
//     one rule per Puppet parameter, so that adding a translation is one
//     entry). A translation is exact or it does not happen: a parameter
//     without a rule, a value a rule cannot express, a parameter the
//     target kind lacks (checked against the schema registry of
//     pkg/graph), a kind that is not registered, sensitive or rich-data
//     (Deferred) values, or a resource the kind's own validation refuses
//     (Options.Check) send the resource to pippet, which mgmt-apply hands
//     to Puppet; the reason is logged at info level. Pippet resources
//     carry the Puppet setup of the compilation (module path,
//     environment, puppet.conf) and the companions Puppet needs in the
//     same catalog (a concat_file's fragments, the files managed below a
//     recursive directory). Refresh events keep Puppet's meaning:
//     Puppet's whits relay them, our noops do not, so every resource gets
//     a notify edge to each resource Puppet would refresh after it
//     (through notify/subscribe on classes and defines too).
package puppet
