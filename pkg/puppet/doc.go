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
//     pkg, svc, user, group, msg, mount, augeas; whits and anchors become
//     noop), following the reference translator's table and going further
//     where our kinds can (exec unless/onlyif/creates/path/environment,
//     package versions, Debian services). A parameter a target kind lacks
//     (checked against the schema registry of pkg/graph), or a value the
//     table cannot map, makes the resource fall back to pippet, which
//     mgmt-apply hands to Puppet. Refresh events keep Puppet's meaning:
//     Puppet's whits relay them, our noops do not, so every resource gets a
//     notify edge to each resource Puppet would refresh after it (through
//     notify/subscribe on classes and defines too). Messages are written in
//     the reference's style
//     ("Warning: File[/x] ..."); conservative mode falls back on warnings
//     too.
package puppet
