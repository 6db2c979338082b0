import CGtk
import CGtkShims
import Dispatch
import IntervalCore
import IntervalRuntime
import IntervalSettings
import IntervalWatch

/// The plans page's files: the editor for a new or an own plan, Import…, Export…, Rename, Delete and Save of a
/// typed plan, with the questions and answers they show.
extension PlansPage {
    /// The editor for a new plan.
    func newPlan() {
        let draft = PlanDraft(name: "")
        openEditor(.new, text: draft.text, draft: draft)
    }

    /// The editor for the shown own plan, from its file as it is now.
    func editShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        let bytes: [UInt8]
        let draft: PlanDraft
        do throws(FileError) {
            bytes = try FileBytes.read(shown.origin, limit: WorkoutSession.maximumPlanTextBytes)
        } catch {
            toast(error.description, nil)
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(PlanDiagnostic) {
            draft = try PlanDraft(parsing: text)
        } catch {
            toast(error.headline, nil)
            return
        }
        openEditor(.file(path: shown.origin, bytes: bytes), text: text, draft: draft)
    }

    func openEditor(_ target: PlanEditor.Target, text: String, draft: PlanDraft) {
        guard editor == nil, let parent = rootWindow(of: root) else { return }
        let editor = PlanEditor(
            application: application, parent: parent, target: target, text: text,
            draft: draft)
        editor.saved = { [unowned self] path, name in
            showSaved(text: text, at: path)
            toast(tr("Saved “{name}”", ["name": name]), nil)
        }
        editor.closed = { [unowned self] in self.editor = nil }
        self.editor = editor
    }

    /// Adds a `.plan` file chosen in a file chooser as an own plan, once it is checked: a plan that does not parse is
    /// shown with its diagnostic and nothing is added.
    func importPlan() {
        choose(tr("Import a Plan"), action: GTK_FILE_CHOOSER_ACTION_OPEN, accept: tr("Import"), name: nil) {
            [unowned self] path in
            let origin = String(path.split(separator: "/").last ?? "")
            let bytes: [UInt8]
            let plan: Plan
            let text: String
            do throws(FileError) {
                bytes = try FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
            } catch {
                tell(tr("The file was not imported"), error.description)
                return
            }
            // A FIT workout (a watch's, Garmin Connect's): the plan it holds, written as plan language. A file named
            // .fit is read as one, as `intervalctl plan import` reads it, and said not to be one when it is not.
            if FIT.hasSignature(bytes) || path.lowercased().hasSuffix(".fit") {
                do throws(FITWorkoutError) {
                    // Heart rates as a percentage of the maximum become bpm with the settings' maximum, read now.
                    plan = try FITWorkout.decode(
                        bytes, fallbackName: PlanLocator.planName(forPath: path),
                        maxHeartRate: SettingsFile.load(path: application.paths.settingsFile).0.sensors.maxHeartRate)
                } catch {
                    tell(tr("“{file}” is not a workout intervald can import", ["file": origin]), error.message)
                    return
                }
                text = PlanWriter.text(for: plan)
            } else {
                do throws(PlanDiagnostic) {
                    plan = try PlanParser.parse(
                        bytes: bytes, origin: origin, defaultName: PlanLocator.planName(forPath: path))
                } catch {
                    tell(tr("“{file}” is not a valid plan", ["file": origin]), error.description, monospace: true)
                    return
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            guard application.catalog.namesake(of: plan.name) == nil else {
                tell(
                    tr("“{name}” was not imported", ["name": plan.name]),
                    tr("A plan of that name exists already. Rename one of them first."))
                return
            }
            do throws(FileError) {
                let added = try application.library.add(text, named: plan.name)
                showSaved(text: text, at: added)
                toast(tr("Imported “{name}”", ["name": plan.name]), nil)
            } catch {
                tell(tr("The file was not imported"), error.description)
            }
        }
    }

    /// Writes the shown plan's text, as its file has it, to a file chosen in a file chooser.
    func exportShown() {
        guard let shown = detailPlan else { return }
        let stem =
            shown.origin.hasSuffix(".plan")
            ? PlanLocator.planName(forPath: shown.origin) : PlanLibrary.fileStem(for: shown.plan.name)
        let text = shown.origin.hasSuffix(".plan") ? shown.text : PlanWriter.text(for: shown.plan)
        export(shown.plan, Array(text.utf8), tr("Export the Plan"), name: stem + ".plan")
    }

    /// Writes the shown plan as a FIT workout (docs/fit.md) to a file chosen in a file chooser.
    func exportShownAsWorkout() {
        guard let shown = detailPlan, let bytes = workout(of: shown.plan) else { return }
        export(
            shown.plan, bytes, tr("Export as a FIT Workout"), name: FIT.fileName(for: shown.plan.name, extension: "fit")
        )
    }

    /// Writes `bytes`, `plan` as a file, to a file chosen in a file chooser titled `title` that offers `name`.
    private func export(_ plan: Plan, _ bytes: [UInt8], _ title: String, name: String) {
        choose(title, action: GTK_FILE_CHOOSER_ACTION_SAVE, accept: tr("Export"), name: name) { [unowned self] path in
            do throws(FileError) {
                try FileBytes.replace(path, with: bytes)
                toast(tr("Exported “{name}”", ["name": plan.name]), nil)
            } catch {
                tell(tr("The plan was not exported"), error.description)
            }
        }
    }

    /// The plan menu's Send to Watch: "Send to Watch" for the one watch connected, "Send to fenix 6" for each of
    /// several; and the program page's buttons.
    func showWatches() {
        let watches = watch.watches
        g_menu_remove_all(watchItems)
        for connected in watches {
            let label = watches.count == 1 ? tr("Send to Watch") : tr("Send to {watch}", ["watch": connected.name])
            let item = g_menu_item_new(label, nil)
            g_menu_item_set_action_and_target_value(item, "plan.send-to-watch", g_variant_new_string(connected.folder))
            g_menu_append_item(watchItems, item)
            g_object_unref(UnsafeMutableRawPointer(item))
        }
        programs.watches = watches
    }

    /// Copies the shown plan as a FIT workout to the watch whose `GARMIN` folder is `folder`.
    func sendShownToWatch(folder: String) {
        guard let shown = detailPlan, let target = watch.watches.first(where: { $0.folder == folder }) else { return }
        send([(shown.plan, shown.plan.name)], to: target)
    }

    /// Copies `plans` as FIT workouts, each named after its `fileStem`, to `target`, off the main thread (an MTP
    /// watch takes a moment for each file); then says so, and to unplug the watch, or what went wrong.
    func send(_ plans: [(plan: Plan, fileStem: String)], to target: Watch) {
        var made: [(name: String, bytes: [UInt8], file: String)] = []
        for (plan, fileStem) in plans {
            guard let bytes = workout(of: plan) else { return }
            made.append((plan.name, bytes, FIT.fileName(for: fileStem, extension: "fit")))
        }
        let files = made
        let page = UncheckedBox(Unmanaged.passRetained(self))
        Self.watchQueue.async {
            let failure: WatchError?
            do throws(WatchError) {
                for file in files { _ = try WatchWriter.send(file.bytes, as: file.file, to: target) }
                failure = nil
            } catch {
                failure = error
            }
            onMainThread {
                let page = page.value.takeRetainedValue()
                guard let failure else { return page.toast(target.sentText(files.map(\.name)), nil) }
                page.tell(tr("The workout was not sent to the watch"), failure.description)
            }
        }
    }

    /// One copy to a watch at a time, in the order asked.
    static let watchQueue = DispatchQueue(label: "org.intervald.window.watch", qos: .userInitiated)

    /// `plan` as a FIT workout file, or nil once the reason it cannot be one is shown.
    func workout(of plan: Plan) -> [UInt8]? {
        do throws(FITWorkoutError) {
            return try FITWorkout.encode(
                plan, restKinds: application.restKinds, created: WallClock.microseconds() / Micros.second
            ).bytes
        } catch {
            tell(tr("“{name}” cannot be a FIT workout", ["name": plan.name]), error.message)
            return nil
        }
    }

    /// A file chooser for plans and FIT workouts (one at a time); `chosen` gets the path picked.
    func choose(
        _ title: String, action: GtkFileChooserAction, accept: String, name: String?,
        _ chosen: @escaping (String) -> Void
    ) {
        guard chooser == nil, let parent = rootWindow(of: root) else { return }
        chooser = chooseFile(
            parent: parent, title, action: action, accept: accept, name: name,
            filter: (tr("Plans and FIT workouts"), ["*.plan", "*.fit", "*.FIT"]), chosen
        ) { [unowned self] in chooser = nil }
    }

    /// A message with an OK button: what went wrong, and why (a diagnostic in a monospace font).
    func tell(_ heading: String, _ body: String, monospace: Bool = false) {
        guard let parent = rootWindow(of: root) else { return }
        var problem: Widget?
        if monospace {
            let label = Label.checked(gtk_label_new(body))
            gtk_label_set_selectable(label.c, 1)
            gtk_label_set_xalign(label.c, 0)
            gtk_widget_add_css_class(label.widget, "monospace")
            accessibleName(label, tr("Problem"))
            // The line and its caret keep their columns, and scroll sideways: unwrapped, they made the dialog as wide
            // as the plan's line (1080 px beside a 360 px window).
            let scroller = ScrolledWindow.checked(gtk_scrolled_window_new())
            gtk_scrolled_window_set_policy(scroller.c, GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER)
            gtk_scrolled_window_set_propagate_natural_height(scroller.c, 1)
            gtk_scrolled_window_set_child(scroller.c, label.widget)
            problem = scroller.widget
        }
        ask(
            parent, heading, monospace ? nil : body, answers: [Answer(id: "close", label: tr("OK"))],
            cancel: "close", extra: problem
        ) { _ in }
    }

    /// Renames the shown own plan: its name, and its file after it.
    func renameShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        askName(tr("Rename the Plan"), shown.plan.name, tr("Rename")) { [unowned self] name in
            guard let text = named(shown.text, name, except: shown.origin) else { return }
            do throws(FileError) {
                let path = try application.library.rename(shown.origin, text: shown.text, to: name)
                showSaved(text: text, at: path)
            } catch {
                toast(error.description, nil)
            }
        }
    }

    /// Saves the one-line plan, as typed, as an own plan under a name asked for.
    func saveTyped() {
        let typed = oneLine.text
        askName(tr("Save as Plan"), "", tr("Save")) { [unowned self] name in
            guard let text = named(typed, name) else { return }
            do throws(FileError) {
                showSaved(text: text, at: try application.library.add(text, named: name))
                toast(tr("Saved as “{name}”", ["name": name]), nil)
            } catch {
                toast(error.description, nil)
            }
        }
    }

    /// `text` with the plan's name `name`, when that is a plan: a name that is empty, that another plan than the file
    /// at `path` has, or that the plan language refuses (a control character), is said and nothing is written.
    func named(_ text: String, _ name: String, except path: String? = nil) -> String? {
        guard !name.allSatisfy(\.isWhitespace) else {
            toast(tr("A plan needs a name."), nil)
            return nil
        }
        guard application.catalog.namesake(of: name, except: path) == nil else {
            toast(tr("A plan named “{name}” exists already: choose another name.", ["name": name]), nil)
            return nil
        }
        let renamed = PlanLibrary.renamed(text, to: name)
        do throws(PlanDiagnostic) {
            _ = try PlanParser.parse(renamed, origin: name, defaultName: name)
            return renamed
        } catch {
            toast(error.headline, nil)
            return nil
        }
    }

    /// The list again, and the page of the plan just written.
    func showSaved(text: String, at path: String) {
        fill()
        let item = PlanCatalog.load(name: PlanLocator.planName(forPath: path), path: path)
        if case .success(let plan) = item.plan { open(plan, text: item.text ?? text, origin: path) }
    }

    /// Deletes the shown own plan's file, with Undo: the file put back byte for byte.
    func deleteShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        let library = application.library
        do throws(FileError) {
            let bytes = try library.delete(shown.origin)
            detailPlan = nil
            goBack()
            fill()
            toast(tr("“{name}” deleted", ["name": shown.plan.name])) { [unowned self] in
                do throws(FileError) {
                    try library.restore(bytes, at: shown.origin)
                    fill()
                } catch {
                    toast(error.description, nil)
                }
            }
        } catch {
            toast(error.description, nil)
        }
    }
}
