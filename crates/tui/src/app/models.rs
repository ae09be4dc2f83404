//! The model picker's answer from the core (`/model` without a name).

use super::App;
use crate::bottom::model_picker::ModelPickerView;
use crate::history::HistoryCell;
use crate::strings;
use cairn_protocol::ModelInfo;

impl App {
    /// The core listed the models: fill the open picker. A picker already closed (Esc while
    /// loading) wanted nothing more, so the answer is dropped.
    pub(super) fn handle_models_listed(
        &mut self,
        current: String,
        models: Vec<ModelInfo>,
        error: Option<String>,
    ) {
        let Some(picker) = self
            .views
            .iter_mut()
            .rev()
            .find_map(|view| view.as_any_mut().downcast_mut::<ModelPickerView>())
        else {
            return;
        };
        // The picker has one line for the error; the transcript above it keeps the whole
        // sentence, which says what to check.
        if let Some(error) = &error {
            self.transcript
                .push(HistoryCell::Notice(strings::models_not_listed(error)));
            self.transcript.scroll_to_bottom();
        }
        picker.set_models(current, models, error);
    }
}
