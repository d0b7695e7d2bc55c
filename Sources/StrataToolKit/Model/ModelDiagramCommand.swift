import ArgumentParser
import Foundation

/// `strata model diagram MODEL --format mermaid|dot|svg`: the model drawn as entities,
/// relationships and inheritance.
struct ModelDiagramCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagram",
        abstract: "Draw a model as a Mermaid, Graphviz DOT or SVG diagram.",
        discussion: """
            mermaid: an erDiagram with crow's-foot cardinality (paste it into Markdown on \
            GitHub). dot: a Graphviz digraph (dot -Tpng model.dot). svg: a self-contained \
            picture the tool draws itself, no Graphviz needed. Relationships are paired with \
            their inverses (one line, "tags / todos"); inheritance is a dashed line to the \
            parent. The same model always gives the same text.

            Examples:
              strata model diagram Todos.xcdatamodeld --format mermaid
              strata model diagram Todos.xcdatamodeld --format svg --output todos.svg
              strata model diagram App.sqlite --format dot | dot -Tpng > model.png
            """
    )

    /// The diagram languages.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case mermaid, dot, svg
    }

    @OptionGroup var arguments: ModelArguments

    @Option(help: "mermaid, dot or svg.")
    var format: Format

    @Option(help: "The file to write (default: standard output).")
    var output: String?

    /// Reads the model and writes the diagram in the chosen language.
    func run() throws {
        try ModelSupportOutput.run {
            let source = try ModelSource.load(arguments.model, version: arguments.version)
            let name = URL(fileURLWithPath: arguments.model).deletingPathExtension().lastPathComponent
            let graph = ModelGraph(source.model, name: name)
            let text =
                switch format {
                case .mermaid: DiagramText.mermaid(graph)
                case .dot: DiagramText.dot(graph)
                case .svg: DiagramSVG.render(graph)
                }
            try ModelSupportOutput.write(text, to: output)
        }
    }
}
